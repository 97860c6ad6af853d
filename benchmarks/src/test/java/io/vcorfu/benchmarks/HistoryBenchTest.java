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
 * {@code vcorfu bench history} against a node: both listings find the newest versions (the run
 * checks them and fails otherwise) and the result names both timings; bad options are refused.
 */
class HistoryBenchTest {
  @RegisterExtension final LocalNode node = new LocalNode();

  @Test
  void listsTheNewestVersionsBothWaysAndReportsBoth() throws Exception {
    String out =
        run(
            0,
            "--endpoint",
            node.endpoint().toString(),
            "--versions",
            "40",
            "--newest",
            "10",
            "--noise",
            "2",
            "--repeat",
            "1",
            "--output",
            "json");
    JsonNode r =
        BenchOutput.JSON.readTree(
            out.lines().filter(l -> l.startsWith("{")).findFirst().orElseThrow());
    assertThat(r.get("mode").asText()).isEqualTo("history");
    assertThat(r.get("history_median_ms").asDouble()).isPositive();
    assertThat(r.get("snapshots_median_ms").asDouble()).isPositive();
  }

  @Test
  void badOptionsAreRefused() {
    assertThat(
            run(
                VcorfuCli.FAILED,
                "--endpoint",
                node.endpoint().toString(),
                "--versions",
                "5",
                "--newest",
                "6"))
        .isEmpty();
  }

  private static String run(int expectedCode, String... args) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream saved = System.out;
    System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    try {
      int code = VcorfuCli.commandLine(new HistoryBench()).execute(args);
      assertThat(code).isEqualTo(expectedCode);
    } finally {
      System.setOut(saved);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }
}
