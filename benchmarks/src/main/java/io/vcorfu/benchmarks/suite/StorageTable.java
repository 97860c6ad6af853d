package io.vcorfu.benchmarks.suite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The lines of {@code vcorfu bench suite storage}, as run-storage.sh's printf and python3 printed
 * them: the header, one row per round (bytes on disk and run-phase rate, each with its ratio to
 * round 1, and the disk after the settle pause), and a node's storage from /status.json. Pure.
 */
final class StorageTable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private StorageTable() {}

  static String header() {
    return String.format(
        Locale.ROOT,
        "%-6s %14s %8s %12s %8s %14s %8s",
        "round",
        "disk_bytes",
        "x_round1",
        "run_ops_s",
        "x_round1",
        "settled_bytes",
        "x_round1");
  }

  /**
   * Round R's row: BYTES on disk and OPS per second beside round 1's (FIRST_BYTES, FIRST_OPS);
   * SETTLED (bytes after the settle pause) beside round 1's, or "-" when not measured (null).
   */
  static String row(
      int round, long bytes, long firstBytes, long ops, long firstOps, Long settled, Long first) {
    String settledText = settled == null ? "-" : "" + settled;
    String settledRatio = settled == null ? "-" : pythonRound2((double) settled / (double) first);
    return String.format(
        Locale.ROOT,
        "%-6s %14s %8.2f %12s %8.2f %14s %8s",
        "" + round,
        "" + bytes,
        (double) bytes / firstBytes,
        "" + ops,
        (double) ops / firstOps,
        settledText,
        settledRatio);
  }

  /** What Python's {@code print(round(V, 2))} prints: "1.0", "0.95", "12.5". */
  static String pythonRound2(double v) {
    BigDecimal r = new BigDecimal(v).setScale(2, RoundingMode.HALF_EVEN).stripTrailingZeros();
    String s = r.scale() <= 0 ? r.setScale(0).toPlainString() + ".0" : r.toPlainString();
    return v < 0 && !s.startsWith("-") ? "-" + s : s;
  }

  /** The run phase's operations per second of a {@code bench ycsb --output json} line, rounded. */
  static long runRate(String json) throws java.io.IOException {
    JsonNode rate = JSON.readTree(json).path("run").path("ops_per_second");
    if (!rate.isNumber()) {
      throw new IllegalStateException("no run-phase rate in: " + json);
    }
    return (long) Math.rint(rate.asDouble());
  }

  /** "node HOST:PORT storage: STORAGE", STORAGE as Python's json.dumps wrote it. */
  static String nodeLine(String endpoint, JsonNode status) {
    return "node " + endpoint + " storage: " + dumps(status.path("storage"));
  }

  /** V as Python's {@code json.dumps} writes it: ", " between items, ": " after keys. */
  static String dumps(JsonNode v) {
    if (v.isObject()) {
      List<String> items = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        items.add(new TextNode(e.getKey()) + ": " + dumps(e.getValue()));
      }
      return "{" + String.join(", ", items) + "}";
    }
    if (v.isArray()) {
      List<String> items = new ArrayList<>();
      v.forEach(e -> items.add(dumps(e)));
      return "[" + String.join(", ", items) + "]";
    }
    if (v.isMissingNode()) {
      return "null";
    }
    return v.toString();
  }
}
