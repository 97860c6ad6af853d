package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vcorfu.server.cli.VcorfuCli;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code vcorfu bench diff} against a node: both ways find the same differences (the run checks
 * them and fails otherwise) and the result names both timings; bad options are refused.
 */
class DiffBenchTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  @Test
  void diffsBothWaysAndReportsBoth() throws Exception {
    List<String> out =
        NODE.run(new DiffBench(), "--keys 2500 --buckets 4 --changes 20 --repeat 1 --output json");
    JsonNode r = BenchOutput.JSON.readTree(out.get(out.size() - 1));
    assertThat(r.get("mode").asText()).isEqualTo("diff");
    assertThat(r.get("differences").asInt()).isPositive();
    assertThat(r.get("diff_median_ms").asDouble()).isPositive();
    assertThat(r.get("snapshots_median_ms").asDouble()).isPositive();
  }

  @Test
  void badOptionsAreRefused() {
    BenchNode.Printed p = NODE.runPrinting(new DiffBench(), "--changes 0", VcorfuCli.FAILED);
    assertThat(String.join("\n", p.err())).contains("must be at least 1");
  }
}
