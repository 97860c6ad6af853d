package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The text output (the default) line by line, as scripts parse it: standard output holds exactly
 * the result lines, in their exact format, and the progress lines go to standard error.
 */
class TextOutputTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  private static final String LATENCY =
      "latency_ms p50 \\d+\\.\\d{3} p99 \\d+\\.\\d{3} p999 \\d+\\.\\d{3} max \\d+\\.\\d{3}";

  @Test
  void appendPrintsOnlyItsResultLineAndProgressGoesToStandardError() {
    BenchNode.Printed p = NODE.runPrinting(new AppendBench(), "--duration 2 --prefix ta");

    assertThat(p.out())
        .singleElement()
        .asString()
        .matches(
            "append threads 1 conns 1 streams 1 size 32: \\d+ appends in \\d+\\.\\d s = \\d+"
                + " appends/s \\(\\d+\\.\\d{2} MB/s\\), "
                + LATENCY);
    assertThat(p.err()).anyMatch(l -> l.matches("progress append \\d+ ops [1-9]\\d* total \\d+"));
  }

  @Test
  void tokensAndReadPrintTheirLines() {
    assertThat(NODE.run(new TokensBench(), "--threads 2 --duration 0.5"))
        .singleElement()
        .asString()
        .matches(
            "tokens loopback threads 2 conns 1 streams 1 batch 1 pipeline 32: \\d+ tokens in"
                + " \\d+\\.\\d s = \\d+ tokens/s, request "
                + LATENCY
                + ", \\d+\\.\\d{2} requests per token message \\(whole run\\)");

    NODE.run(new AppendBench(), "--duration 0.3 --prefix tr");
    assertThat(NODE.run(new ReadBench(), "--prefix tr --batch 100 --duration 0.5"))
        .singleElement()
        .asString()
        .matches(
            "read threads 1 conns 1 streams 1 batch 100 \\(\\d+ stream addresses\\): \\d+ entries"
                + " in \\d+\\.\\d s = \\d+ entries/s \\(\\d+\\.\\d{2} MB/s\\), 0 holes, \\d+"
                + " calls, call "
                + LATENCY);
    assertThat(
            NODE.run(
                new ReadBench(),
                "--prefix tr-never --duration 0.5",
                io.vcorfu.server.cli.VcorfuCli.FAILED))
        .containsExactly("read: nothing to read: the 1 stream(s) are empty");
  }

  @Test
  void degradedPrintsOneLinePerHoleRate() {
    List<String> out =
        NODE.run(new DegradedBench(), "--entries 40 --others 2 --hole-rates 0,0.5 --seed 3");

    assertThat(out).hasSize(2);
    assertThat(out.get(0))
        .matches(
            "degraded hole_rate 0\\.00 entries 40 holes 0 others_per_entry 2 scanned \\d+"
                + " scanned_per_entry \\d+\\.\\d{2} degraded_ms \\d+ replica_ms \\d+ decide_ms"
                + " \\d+ globals \\d+-\\d+ same true");
    assertThat(out.get(1))
        .matches(
            "degraded hole_rate 0\\.50 entries 40 holes [1-9]\\d* others_per_entry 2 scanned"
                + " \\d+ scanned_per_entry \\d+\\.\\d{2} degraded_ms \\d+ replica_ms \\d+"
                + " decide_ms \\d+ globals \\d+-\\d+ same true");
  }

  @Test
  void streamTimelinePrintsOneLinePerSecond() {
    assertThat(NODE.run(new StreamTimelineBench(), "--duration 1 --stream tst"))
        .singleElement()
        .asString()
        .matches(
            "second 1 appends [1-9]\\d* reads \\d+ degraded_log_reads \\d+ failures \\d+ at"
                + " \\d+\\.\\d{3}");
  }
}
