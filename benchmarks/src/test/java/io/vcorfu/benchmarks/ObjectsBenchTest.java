package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Every {@code bench objects} mode runs against a real node, does work, and its state checks pass.
 */
class ObjectsBenchTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  @ParameterizedTest
  @ValueSource(
      strings = {
        "accessor-local",
        "accessor-remote",
        "accessor-behind --behind 3",
        "mutator --threads 2",
        "tx --threads 3 --objects 4",
        "ro-tx-local --threads 2",
        "ro-tx-remote --threads 2",
        "ro-tx-local --random-snapshot",
        "ro-tx-remote --random-snapshot"
      })
  void modeDoesWorkAndItsStateChecksPass(String args) {
    List<String> lines = run(args + " --duration 0.5");
    String mode = args.split(" ")[0] + (args.contains("--random-snapshot") ? "-snap" : "");
    String summary =
        lines.stream()
            .filter(l -> l.startsWith("objects mode=" + mode + " "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no summary line for " + mode + " in " + lines));
    Matcher ops = Pattern.compile(" ops=(\\d+) ").matcher(summary);
    assertThat(ops.find()).isTrue();
    assertThat(Long.parseLong(ops.group(1))).as(summary).isPositive();
    assertThat(summary).contains("latency_ms p50 ").doesNotContain("p50 -");
    assertThat(lines)
        .filteredOn(l -> l.startsWith("check "))
        .isNotEmpty()
        .allSatisfy(l -> assertThat(l).doesNotContain("FAILED"));
    assertThat(lines).noneMatch(l -> l.startsWith("stopped early") || l.contains("could not run"));
  }

  @Test
  void transactionsUnderContentionCountAborts() {
    List<String> lines = run("tx --threads 4 --objects 2 --duration 1");
    String summary =
        lines.stream().filter(l -> l.startsWith("objects mode=tx ")).findFirst().orElseThrow();
    Matcher aborts = Pattern.compile(" aborts=(\\d+) ").matcher(summary);
    assertThat(aborts.find()).isTrue();
    assertThat(Long.parseLong(aborts.group(1))).as(summary).isPositive();
    assertThat(lines).anyMatch(l -> l.startsWith("check tx: ok: sum of balances"));
  }

  @Test
  void unknownModeIsRefusedWithTheListOfModes() {
    CommandLine cl = io.vcorfu.server.cli.VcorfuCli.commandLine(new ObjectsBench());
    java.io.StringWriter err = new java.io.StringWriter();
    cl.setErr(new java.io.PrintWriter(err));
    assertThat(cl.execute("no-such-mode", "--endpoint", NODE.endpoint())).isEqualTo(1);
    assertThat(err.toString()).contains("unknown mode 'no-such-mode'").contains("accessor-remote");
  }

  @Test
  void helpNamesEveryMode() {
    CommandLine cl = io.vcorfu.server.cli.VcorfuCli.commandLine(new ObjectsBench());
    java.io.StringWriter out = new java.io.StringWriter();
    cl.setOut(new java.io.PrintWriter(out));
    assertThat(cl.execute("--help")).isZero();
    assertThat(out.toString()).contains(ObjectsBench.MODES);
  }

  /** A mode that cannot run at all (nothing listens) says so and exits 1, not 0. */
  @Test
  void aModeThatCannotRunSaysSoAndExitsOne() throws Exception {
    int closed;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.PrintStream oldOut = System.out;
    int code;
    System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      code =
          BenchCli.commandLine(new ObjectsBench())
              .execute(
                  "mutator",
                  "--endpoint",
                  "127.0.0.1:" + closed,
                  "--duration",
                  "1",
                  "--failover-timeout",
                  "0");
    } finally {
      System.setOut(oldOut);
    }
    String printed = out.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(code).as(printed).isEqualTo(io.vcorfu.server.cli.VcorfuCli.FAILED);
    assertThat(printed).startsWith("objects mode=mutator: could not run: ").contains("" + closed);
  }

  private static List<String> run(String args) {
    return NODE.run(new ObjectsBench(), args);
  }
}
