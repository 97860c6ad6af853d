package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vcorfu.server.cli.VcorfuCli;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code vcorfu bench watch} against a node: every watcher hears every change once, in order, and
 * the result names the counts and both latencies; bad options are refused.
 */
class WatchBenchTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  @Test
  void everyWatcherHearsEveryChangeOnceInOrder() throws Exception {
    List<String> out =
        NODE.run(
            new WatchBench(), "--watchers 2 --rate 100 --duration 1 --warmup 0.5 --output json");
    JsonNode r = BenchOutput.JSON.readTree(out.get(out.size() - 1));
    assertThat(r.get("mode").asText()).isEqualTo("watch");
    assertThat(r.get("changes").asLong()).isEqualTo(150);
    assertThat(r.get("missing").asLong()).isZero();
    assertThat(r.get("duplicates").asLong()).isZero();
    assertThat(r.get("out_of_order").asLong()).isZero();
    // Two watchers, the 100 changes after the half-second warm-up each.
    assertThat(r.get("send_to_callback").get("count").asLong()).isEqualTo(200);
    assertThat(r.get("ack_to_callback").get("count").asLong()).isEqualTo(200);
  }

  @Test
  void badOptionsAreRefused() {
    BenchNode.Printed p = NODE.runPrinting(new WatchBench(), "--size 8", VcorfuCli.FAILED);
    assertThat(String.join("\n", p.err())).contains("--size at least 16");
  }
}
