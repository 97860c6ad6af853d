package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The YCSB suite's tables, against the text run-ycsb.sh's awk made of the same pairs (ycsb/
 * expected.md was written by it): workload C with every pair finished (cold and warm figures for
 * some), workload A with errors on redis (and an operation type only redis ran) and etcd failed.
 */
class YcsbSummaryTest {
  private static String resource(String name) throws IOException {
    try (InputStream in = YcsbSummaryTest.class.getResourceAsStream("ycsb/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void theTablesAreTheScriptsToTheByte() throws IOException {
    List<YcsbSummary.Pair> pairs = new ArrayList<>();
    for (String w : List.of("a", "c")) {
      for (String db : YcsbSummary.DBS) {
        String base = w + "-" + db;
        pairs.add(
            new YcsbSummary.Pair(
                w,
                db,
                resource(base + ".status").trim(),
                resource(base + ".out").lines().toList()));
      }
    }
    assertThat(YcsbSummary.of(List.of("a", "c"), pairs)).isEqualTo(resource("expected.md"));
  }

  @Test
  void aPairThatNeverRanIsReportedAsSuch() {
    String text =
        YcsbSummary.of(
            List.of("b"),
            List.of(
                new YcsbSummary.Pair("b", "vcorfu", "0", List.of()),
                new YcsbSummary.Pair("b", "redis", "0", List.of())));
    assertThat(text)
        .contains("| B | overall | - | - | failed | - | - |")
        .endsWith("- workload B on etcd: exit status \n");
  }
}
