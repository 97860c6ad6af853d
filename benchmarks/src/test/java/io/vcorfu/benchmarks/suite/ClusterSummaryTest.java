package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cluster suite's tables, against the text the run-cluster.sh script's awk made of the same
 * result lines (cluster-summary.md was written by it): two failover rounds, one of them not
 * recovered; appends with 8 clients only; YCSB C only, with one warm figure missing.
 */
class ClusterSummaryTest {
  private static String resource(String name) throws IOException {
    try (InputStream in = ClusterSummaryTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void theTablesAreTheScriptsToTheByte() throws IOException {
    List<String> lines = resource("cluster-results.txt").lines().toList();
    String tables = ClusterSummary.of(lines, new ClusterSummary.Windows(10, 30, 10, 10, 20));
    assertThat(tables).isEqualTo(resource("cluster-summary.md"));
  }

  @Test
  void partsWithoutResultLinesHaveNoTable() {
    List<String> lines =
        List.of(
            "load-start | 2026-11-29T10:00:00Z up",
            "append vcorfu t8 | exit status 1",
            "load-end | 2026-11-29T10:09:00Z up");
    assertThat(ClusterSummary.of(lines, new ClusterSummary.Windows(1, 1, 1, 1, 1))).isEmpty();
    assertThat(ClusterSummary.loadLines(lines))
        .isEqualTo(
            "    load-start | 2026-11-29T10:00:00Z up\n    load-end | 2026-11-29T10:09:00Z up\n");
  }

  @Test
  void theSummaryHasTheRunsHeadingTablesAndLoadLines() {
    ClusterSuite suite = new ClusterSuite();
    new picocli.CommandLine(suite).parseArgs("--quick");
    String text =
        ClusterSuite.summary(
            suite.options.settings(),
            List.of(
                "load | ycsb c 1.0 2.0 3.0",
                "ycsb vcorfu b | ycsb summary: db vcorfu, run 10 ops at 5.0 ops/s (0 errors)"),
            "Started A, finished B.");
    assertThat(text)
        .startsWith(
            "# Cluster: three vcorfu nodes (R = 3) vs a three-member etcd cluster, 127.0.0.1\n\n"
                + "Started A, finished B.\n\n## YCSB, 8 threads, ops/s (cold = first 3 s of the run"
                + " phase, warm = after 5 s)\n")
        .contains("| B | overall | 5 | - | - |\n")
        .endsWith("Load average through the run:\n\n    load | ycsb c 1.0 2.0 3.0\n");
  }
}
