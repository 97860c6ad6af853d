package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vcorfu.server.LocalNode;
import io.vcorfu.server.cli.VcorfuCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bench append --ack-log}: one progress line a second, one ack line per acknowledged append,
 * and a run that goes on, counting errors, when the cluster stops answering.
 */
class AppendAckLogTest {
  private static final Pattern PROGRESS =
      Pattern.compile(
          "^progress (\\d+) acked (\\d+) total (\\d+) errors (\\d+) p99_ms (-|\\d+\\.\\d\\d)$");

  @TempDir Path tmp;

  /** What one run printed and returned. */
  private record Run(int code, List<String> lines) {
    List<Matcher> progress() {
      List<Matcher> out = new ArrayList<>();
      for (String l : lines) {
        Matcher m = PROGRESS.matcher(l);
        if (m.matches()) {
          out.add(m);
        }
      }
      return out;
    }
  }

  /** Runs {@code bench append} with {@code args}; not thread-safe (swaps System.out). */
  private static Run append(List<String> args) {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream old = System.out;
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = VcorfuCli.commandLine(new AppendBench()).execute(args.toArray(String[]::new));
    } finally {
      System.setOut(old);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    return new Run(code, List.of(out.split("\n")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"threads", "loop"})
  void everySecondPrintsProgressAndEveryAckIsLogged(String callers) throws Exception {
    Path acks = tmp.resolve("acks");
    try (LocalNode node = LocalNode.start()) {
      String endpoints = "127.0.0.1:" + closedPort() + "," + node.endpoint();
      Run r =
          append(
              List.of(
                  "--endpoint",
                  endpoints,
                  "--threads",
                  "2",
                  "--callers",
                  callers,
                  "--duration",
                  "2.5",
                  "--prefix",
                  "acklog",
                  "--ack-log",
                  acks.toString()));

      assertThat(r.code()).isZero();
      List<Matcher> progress = r.progress();
      assertThat(progress).hasSizeGreaterThanOrEqualTo(2);
      long sum = 0;
      for (int i = 0; i < progress.size(); i++) {
        Matcher m = progress.get(i);
        assertThat(Long.parseLong(m.group(1))).isEqualTo(i + 1);
        sum += Long.parseLong(m.group(2));
        assertThat(Long.parseLong(m.group(3))).isEqualTo(sum);
        assertThat(m.group(4)).isEqualTo("0");
        // A second with acknowledgements has their p99; one without says so.
        assertThat(m.group(5).equals("-")).isEqualTo(m.group(2).equals("0"));
      }
      assertThat(sum).isPositive();
      List<String> acked = Files.readAllLines(acks);
      assertThat(acked).hasSizeGreaterThanOrEqualTo((int) sum);
      // Each acknowledged append is logged once, with its own value and global address.
      assertThat(acked.stream().map(l -> l.split(" ")[3]).distinct()).hasSize(acked.size());
      assertThat(acked.stream().map(l -> l.split(" ")[2]).distinct()).hasSize(acked.size());
      assertThat(r.lines()).noneMatch(l -> l.startsWith("errors") || l.startsWith("stopped"));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"threads", "loop"})
  void appendsThatFailAfterTheFailoverTimeoutAreCountedAndTheRunGoesOn(String callers)
      throws Exception {
    Path acks = tmp.resolve("acks");
    LocalNode node = LocalNode.start();
    AtomicInteger code = new AtomicInteger(-1);
    List<Run> result = new ArrayList<>();
    Thread bench =
        new Thread(
            () -> {
              Run r =
                  append(
                      List.of(
                          "--endpoint",
                          node.endpoint().toString(),
                          "--callers",
                          callers,
                          "--duration",
                          "4",
                          "--failover-timeout",
                          "0.3",
                          "--prefix",
                          "failing",
                          "--ack-log",
                          acks.toString()));
              synchronized (result) {
                result.add(r);
              }
              code.set(r.code());
            },
            "bench-append");
    try {
      bench.start();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> Files.exists(acks) && Files.readAllLines(acks).size() >= 5);
    } finally {
      node.close();
    }
    bench.join(Duration.ofSeconds(30).toMillis());

    assertThat(bench.isAlive()).as("the run ended").isFalse();
    assertThat(code.get()).isZero();
    Run r;
    synchronized (result) {
      r = result.get(0);
    }
    List<Matcher> progress = r.progress();
    assertThat(progress).hasSizeGreaterThanOrEqualTo(2);
    Matcher last = progress.get(progress.size() - 1);
    // Each failed append waited out the client's failover timeout (0.3 s) first: a few a second.
    assertThat(Long.parseLong(last.group(4))).as("errors counted").isBetween(1L, 100L);
    assertThat(progress)
        .as("a second with nothing acknowledged")
        .anyMatch(m -> m.group(2).equals("0"));
    assertThat(r.lines())
        .anyMatch(l -> l.startsWith("errors: "))
        .noneMatch(l -> l.startsWith("stopped early"));
  }

  @Test
  void aRateBoundsTheAppendsOfEverySecondAndOfTheRun() throws Exception {
    Path acks = tmp.resolve("acks");
    try (LocalNode node = LocalNode.start()) {
      Run r =
          append(
              List.of(
                  "--endpoint",
                  node.endpoint().toString(),
                  "--threads",
                  "2",
                  "--rate",
                  "40",
                  "--duration",
                  "3",
                  "--ack-log",
                  acks.toString()));

      assertThat(r.code()).isZero();
      // Two callers, a turn each every 50 ms: at most 40 a second, and the run's three seconds
      // hold at most 120 turns (and the two first ones at its start).
      assertThat(r.progress())
          .isNotEmpty()
          .allSatisfy(m -> assertThat(Long.parseLong(m.group(2))).isLessThanOrEqualTo(42));
      assertThat(Files.readAllLines(acks)).isNotEmpty().hasSizeLessThanOrEqualTo(122);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "NaN", "Infinity"})
  void aRateThatIsNotANumberOfAppendsASecondIsRefusedBeforeAnyLoad(String rate) {
    Path acks = tmp.resolve("acks");
    Run r =
        append(
            List.of(
                "--endpoint",
                "127.0.0.1:" + 1,
                "--rate",
                rate,
                "--duration",
                "1",
                "--ack-log",
                acks.toString()));

    assertThat(r.code()).isEqualTo(2);
    assertThat(acks).doesNotExist();
  }

  @Test
  void aRateWithLoopCallersIsRefusedBeforeAnyLoad() {
    Run r =
        append(
            List.of(
                "--endpoint",
                "127.0.0.1:" + 1,
                "--callers",
                "loop",
                "--rate",
                "10",
                "--duration",
                "1"));

    assertThat(r.code()).isEqualTo(2);
  }

  @Test
  void anUnknownCallerStyleIsRefusedBeforeAnyLoad() {
    Run r =
        append(List.of("--endpoint", "127.0.0.1:" + 1, "--callers", "fibers", "--duration", "1"));

    assertThat(r.code()).isEqualTo(2);
  }

  /** A port nothing listens on (it was free a moment ago). */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
