package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vcorfu.server.LocalNode;
import io.vcorfu.server.cli.VcorfuCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code vcorfu bench watch} against a node: every watcher hears every change once, in order, and
 * the result names the counts and both latencies; bad options are refused.
 */
class WatchBenchTest {
  @RegisterExtension final LocalNode node = new LocalNode();

  @Test
  void everyWatcherHearsEveryChangeOnceInOrder() throws Exception {
    String out =
        run(
            0,
            "--endpoint",
            node.endpoint().toString(),
            "--watchers",
            "2",
            "--rate",
            "100",
            "--duration",
            "1",
            "--warmup",
            "0.5",
            "--output",
            "json");
    JsonNode r =
        BenchOutput.JSON.readTree(
            out.lines().filter(l -> l.startsWith("{")).findFirst().orElseThrow());
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
    String out = run(VcorfuCli.FAILED, "--endpoint", node.endpoint().toString(), "--size", "8");
    assertThat(out).isEmpty();
  }

  private static String run(int expectedCode, String... args) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream saved = System.out;
    System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    try {
      int code = VcorfuCli.commandLine(new WatchBench()).execute(args);
      assertThat(code).isEqualTo(expectedCode);
    } finally {
      System.setOut(saved);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }
}
