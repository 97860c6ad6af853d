package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.server.cli.OutputFormat;
import java.io.PrintStream;
import picocli.CommandLine.Option;

/**
 * {@code --output text|json}, the option every {@code vcorfu bench} mode takes (a picocli mixin),
 * and the one way a mode prints a result. A result has two forms: its text lines, as the mode has
 * always printed them and scripts parse them, and a JSON object with named fields ({@code "mode"}
 * first). In text the lines are printed; in JSON the object is printed as one line (JSON Lines), so
 * standard output holds nothing but results. Progress lines go to standard error in both formats.
 */
public final class BenchOutput {
  static final ObjectMapper JSON = new ObjectMapper();

  @Option(
      names = "--output",
      defaultValue = "text",
      paramLabel = "FORMAT",
      description =
          "How results are printed on standard output: text (the default: each result as this"
              + " mode's lines of text) or json (JSON Lines: one object per result, with named"
              + " fields: \"mode\","
              + " the parameters, counts, seconds, rates per second, latency as {count, p50_ms,"
              + " p99_ms, p999_ms, max_ms}; a run that could not run is {\"mode\": ...,"
              + " \"error\": ...}). Progress goes to standard error in both: once a second"
              + " 'progress NAME SECONDS ops N total M' while the load runs (ycsb: YCSB's own"
              + " status line).")
  OutputFormat format = OutputFormat.text;

  /** True when results are printed as JSON. */
  public boolean json() {
    return format == OutputFormat.json;
  }

  /** A new result of {@code mode}: {@code {"mode": mode}}, to which the mode adds its fields. */
  public static ObjectNode result(String mode) {
    return JSON.createObjectNode().put("mode", mode);
  }

  /** A run of {@code mode} that could not run: {@code {"mode": mode, "error": message}}. */
  public static ObjectNode error(String mode, String message) {
    return result(mode).put("error", message);
  }

  /**
   * Puts {@code "stopped_early"} into {@code result}: null when no thread stopped, else {@code
   * {"threads": N, "first_error": firstError}}.
   */
  /**
   * Sorts {@code nanos} (the times of repeated runs), puts their median and slowest in milliseconds
   * into {@code result} as {@code NAME_median_ms} and {@code NAME_max_ms}, and answers those two.
   */
  static double[] putMedianAndMax(ObjectNode result, String name, java.util.List<Long> nanos) {
    nanos.sort(null);
    double median = nanos.get(nanos.size() / 2) / 1e6;
    double max = nanos.get(nanos.size() - 1) / 1e6;
    result.put(name + "_median_ms", median).put(name + "_max_ms", max);
    return new double[] {median, max};
  }

  static void putStoppedEarly(ObjectNode result, long threads, String firstError) {
    if (threads == 0) {
      result.putNull("stopped_early");
    } else {
      result.putObject("stopped_early").put("threads", threads).put("first_error", firstError);
    }
  }

  /**
   * Prints one result on standard output, see {@link #print(PrintStream, ObjectNode, String...)}.
   */
  public void print(ObjectNode result, String... lines) {
    print(System.out, result, lines);
  }

  /**
   * Prints one result on {@code out}: in text its {@code lines} (a null line is skipped), in JSON
   * {@code result} as one line of compact JSON. Flushes, so a long run shows each result as it
   * comes.
   */
  public void print(PrintStream out, ObjectNode result, String... lines) {
    if (json()) {
      out.println(result.toString());
    } else {
      for (String line : lines) {
        if (line != null) {
          out.println(line);
        }
      }
    }
    out.flush();
  }
}
