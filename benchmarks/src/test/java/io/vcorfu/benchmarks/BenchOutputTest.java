package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchOutputTest {
  private static String print(String format, ObjectNode result, String... lines) {
    BenchOutput output = new BenchOutput();
    new CommandLine(output).parseArgs("--output", format);
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    output.print(new PrintStream(buf, true, StandardCharsets.UTF_8), result, lines);
    return buf.toString(StandardCharsets.UTF_8);
  }

  @Test
  void textPrintsTheLinesButNullsAndJsonTheObjectOnOneLine() {
    ObjectNode result = BenchOutput.result("demo").put("ops", 3).put("note", "a\nb");
    result.putObject("latency").put("count", 3);

    assertThat(print("text", result, "first", null, "second"))
        .isEqualTo("first" + System.lineSeparator() + "second" + System.lineSeparator());
    assertThat(print("json", result, "first", null, "second"))
        .isEqualTo(
            "{\"mode\":\"demo\",\"ops\":3,\"note\":\"a\\nb\",\"latency\":{\"count\":3}}"
                + System.lineSeparator());
  }

  @Test
  void textIsTheDefault() {
    BenchOutput output = new BenchOutput();
    new CommandLine(output).parseArgs();

    assertThat(output.json()).isFalse();
  }

  @Test
  void aRunThatCouldNotRunAndThreadsThatStoppedEarlyHaveTheirFields() {
    assertThat(BenchOutput.error("read", "no node").toString())
        .isEqualTo("{\"mode\":\"read\",\"error\":\"no node\"}");
    ObjectNode none = BenchOutput.result("x");
    BenchOutput.putStoppedEarly(none, 0, null);
    assertThat(none.toString()).isEqualTo("{\"mode\":\"x\",\"stopped_early\":null}");
    ObjectNode two = BenchOutput.result("x");
    BenchOutput.putStoppedEarly(two, 2, "refused");
    assertThat(two.toString())
        .isEqualTo(
            "{\"mode\":\"x\",\"stopped_early\":{\"threads\":2,\"first_error\":\"refused\"}}");
  }
}
