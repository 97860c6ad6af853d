package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.netty.NettyTransport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several client processes append to one durable node process, which is killed with SIGKILL while
 * their appends are in flight and started again on its data directory: the clients retry through
 * the restart (their earlier attempts' outcomes unknown), and afterwards every value is in the log
 * exactly once, every acknowledged one at the address its client was given. Once with the node's
 * default group commit (a force before every answer) and once forcing once a second, where the
 * node's request thread writes each record into the file itself before answering.
 */
public class AppendIdempotenceProcessTest {
  private static final int CLIENTS = 3;
  private static final int APPENDS = 400;

  @TempDir Path tmp;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"group commit", "--fsync-interval-ms 1000"})
  void appendsRetriedAcrossAKillNineOfTheNodeAreStoredOnce(String durability) throws Exception {
    int port = ServerProcess.freePort();
    Path data = tmp.resolve("node");
    List<String> args = new ArrayList<>(List.of("--data-dir", data.toString()));
    if (durability.startsWith("--")) {
      args.addAll(List.of(durability.split(" ")));
    }
    ServerProcess server = ServerProcess.start(port, args).awaitReady();
    List<Process> clients = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    try {
      for (int c = 0; c < CLIENTS; c++) {
        Path file = tmp.resolve("client-" + c + ".txt");
        files.add(file);
        List<String> cmd = ChildJvm.command("256m", AppendClient.class.getName());
        cmd.addAll(
            List.of(
                server.endpoint().toString(),
                "client" + c,
                Integer.toString(APPENDS),
                file.toString()));
        clients.add(
            new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("client-" + c + ".log").toFile())
                .start());
      }
      Awaitility.await("a quarter of the appends acknowledged")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> acked(files).size() >= CLIENTS * APPENDS / 4);
      server.kill9();
      server = ServerProcess.start(port, args).awaitReady();
      for (Process p : clients) {
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("client finished").isTrue();
        assertThat(p.exitValue()).isZero();
      }
      Map<String, Long> acked = acked(files);
      List<String> failures = new ArrayList<>();
      for (Path f : files) {
        Files.readAllLines(f).stream().filter(l -> l.startsWith("fail ")).forEach(failures::add);
      }
      Map<String, List<Long>> stored;
      try (NettyTransport transport = new NettyTransport();
          ClusterStreamLog log =
              ClusterStreamLog.connect(transport, server.endpoint(), StreamLogOptions.defaults())) {
        stored = storedValues(log);
      }
      for (Map.Entry<String, List<Long>> e : stored.entrySet()) {
        assertThat(e.getValue()).as("addresses holding %s", e.getKey()).hasSize(1);
      }
      assertThat(failures).as("appends that failed").isEmpty();
      assertThat(acked).hasSize(CLIENTS * APPENDS);
      for (Map.Entry<String, Long> a : acked.entrySet()) {
        assertThat(stored.get(a.getKey()))
            .as("where %s is", a.getKey())
            .containsExactly(a.getValue());
      }
    } finally {
      for (Process p : clients) {
        p.destroyForcibly();
      }
      server.close();
    }
  }

  /** Every value the log holds (its payload as text), with the global addresses holding it. */
  public static Map<String, List<Long>> storedValues(ClusterStreamLog log) throws Exception {
    Map<String, List<Long>> stored = new HashMap<>();
    long tail = log.tails(List.of()).get(30, TimeUnit.SECONDS).globalTail();
    for (long from = 0; from <= tail; from += 500) {
      for (GlobalEntry e :
          log.readGlobalRange(from, Math.min(tail, from + 499)).get(60, TimeUnit.SECONDS)) {
        if (!e.isHole()) {
          stored
              .computeIfAbsent(
                  new String(e.payload(), StandardCharsets.UTF_8), v -> new ArrayList<>())
              .add(e.globalAddress());
        }
      }
    }
    return stored;
  }

  /**
   * The values acknowledged so far, with their addresses, from the files of {@link AppendClient}s.
   */
  public static Map<String, Long> acked(List<Path> files) throws IOException {
    Map<String, Long> acked = new HashMap<>();
    for (Path f : files) {
      if (!Files.exists(f)) {
        continue;
      }
      for (String line : Files.readAllLines(f)) {
        String[] w = line.split(" ");
        if (w.length == 3 && w[0].equals("ack")) {
          acked.put(w[1], Long.parseLong(w[2]));
        }
      }
    }
    return acked;
  }
}
