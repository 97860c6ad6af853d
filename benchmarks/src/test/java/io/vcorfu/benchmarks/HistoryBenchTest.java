package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vcorfu.server.cli.VcorfuCli;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code vcorfu bench history} against a node: both listings find the newest versions (the run
 * checks them and fails otherwise) and the result names both timings; bad options are refused.
 */
class HistoryBenchTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  @Test
  void listsTheNewestVersionsBothWaysAndReportsBoth() throws Exception {
    List<String> out =
        NODE.run(
            new HistoryBench(), "--versions 40 --newest 10 --noise 2 --repeat 1 --output json");
    JsonNode r = BenchOutput.JSON.readTree(out.get(out.size() - 1));
    assertThat(r.get("mode").asText()).isEqualTo("history");
    assertThat(r.get("history_median_ms").asDouble()).isPositive();
    assertThat(r.get("snapshots_median_ms").asDouble()).isPositive();
  }

  @Test
  void badOptionsAreRefused() {
    BenchNode.Printed p =
        NODE.runPrinting(new HistoryBench(), "--versions 5 --newest 6", VcorfuCli.FAILED);
    assertThat(String.join("\n", p.err())).contains("--newest at most --versions");
  }
}
