package io.vcorfu.benchmarks.suite;

import io.vcorfu.benchmarks.CostMeter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The figures of {@code vcorfu bench suite stream-store}'s result lines ("TAG | line" each), read
 * as the summary ({@link StreamStoreSummary}) needs them, the way summarize-stream-store.sh's awk
 * read them: a figure a line does not carry reads as 0, a figure with no line is absent (shown
 * "-"), keys are awk's (parts joined by SUBSEP, numbers printed as awk prints them). Headline rows
 * are kept by row id in the order first seen. Not thread-safe; built once by {@link #of}.
 */
final class StreamStoreFigures {
  private static final String SEP = "\u001c";

  private final Map<String, String> load = new HashMap<>();
  private final Set<String> headlineIds = new LinkedHashSet<>();
  private final Map<String, String> text = new HashMap<>();
  private final Map<String, Double> fig = new HashMap<>();
  private final Set<String> tokenKeys = new LinkedHashSet<>();
  private final Set<String> appendRows = new LinkedHashSet<>();
  private final List<String[]> reads = new ArrayList<>();
  private final List<String> xrange = new ArrayList<>();

  static StreamStoreFigures of(List<String> resultLines) {
    StreamStoreFigures f = new StreamStoreFigures();
    resultLines.forEach(f::read);
    return f;
  }

  private static String key(Object... parts) {
    StringBuilder b = new StringBuilder();
    for (Object p : parts) {
      if (b.length() > 0) {
        b.append(SEP);
      }
      b.append(p instanceof Double d ? str(d) : p.toString());
    }
    return b.toString();
  }

  /** A number as awk prints it in a string: integers bare, others to six significant digits. */
  static String str(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e16) {
      return Long.toString((long) v);
    }
    return new java.math.BigDecimal(v)
        .round(new java.math.MathContext(6, java.math.RoundingMode.HALF_EVEN))
        .stripTrailingZeros()
        .toPlainString();
  }

  /** awk's {@code num}: drop everything but digits and dots, then the leading number. */
  static double num(String s) {
    return Markdown.number(s.replaceAll("[^0-9.]", ""));
  }

  /** The word after the first occurrence of {@code word}, "" when none. */
  static String after(String line, String word) {
    String[] a = line.trim().isEmpty() ? new String[0] : line.trim().split("\\s+");
    for (int i = 0; i < a.length - 1; i++) {
      if (a[i].equals(word)) {
        return a[i + 1];
      }
    }
    return "";
  }

  private static double rate(String line) {
    return num(after(line, "="));
  }

  private static String fmt(Double v) {
    return v == null ? "-" : Markdown.fixed(v, 0);
  }

  private static String ms(Double v) {
    return v == null ? "-" : Markdown.fixed(v, 2);
  }

  private static String ratio(Double a, Double b) {
    return a == null || b == null || b == 0 ? "-" : Markdown.fixed(a / b, 2);
  }

  private void read(String raw) {
    String[] parts = raw.split(" [|] ", -1);
    String tag = parts[0];
    String line = parts.length > 1 ? parts[1] : "";
    if (tag.equals("warmup")) {
      return;
    }
    if (tag.startsWith("load-")) {
      load.put(tag, line);
      return;
    }
    String[] w = tag.trim().isEmpty() ? new String[0] : tag.trim().split("\\s+");
    String w2 = w.length > 1 ? w[1] : "";
    String w3 = w.length > 2 ? w[2] : "";
    if (w.length >= 2
        && (w2.equals("desc")
            || w2.equals("vcorfu-cmd")
            || w2.equals("node-flags")
            || w2.equals("peer-cmd")
            || (w2.equals("vcorfu") && w.length == 2)
            || ((w2.equals("redis") || w2.equals("etcd"))
                && (w3.equals("cold") || w3.equals("warm") || w3.equals("cost"))))) {
      headline(w[0], w2, w3, line);
    } else {
      full(tag, w, line);
    }
  }

  private void headline(String id, String w2, String w3, String line) {
    headlineIds.add(id);
    switch (w2) {
      case "desc", "vcorfu-cmd", "node-flags", "peer-cmd" -> text.put(key(w2, id), line);
      case "vcorfu" -> {
        String window = null;
        if (line.startsWith("cold ")) {
          window = "cold";
        } else if (line.startsWith("timeline ")) {
          text.put(key("timeline", id), line.replaceFirst("^.*per second of load: *", ""));
        } else if (line.startsWith("tokens ") || line.startsWith("append ")) {
          window = "warm";
        } else if (line.startsWith(CostMeter.APPEND_WARM_LINE)) {
          text.put(key("vcost", id), line.substring(CostMeter.APPEND_WARM_LINE.length()));
        } else {
          text.merge(key("note", id), " " + line, String::concat);
        }
        if (window != null) {
          fig.put(key("hv", window, id), rate(line));
          fig.put(key("hv50", window, id), num(after(line, "p50")));
          fig.put(key("hv99", window, id), num(after(line, "p99")));
        }
      }
      default -> {
        if (w3.equals("cost")) {
          if (line.startsWith(CostMeter.APPEND_WARM_LINE)) {
            text.put(key("pcost", id), line.substring(CostMeter.APPEND_WARM_LINE.length()));
          }
          return;
        }
        fig.put(key("hp", w3, id), num(after(line, "ops/s:")));
        fig.put(key("hp50", w3, id), num(after(line, "p50_ms:")));
        fig.put(key("hp99", w3, id), num(after(line, "p99_ms:")));
        fig.put(key("hps", w3, id), num(after(line, "seconds:")));
      }
    }
  }

  private void full(String tag, String[] w, String line) {
    if (line.startsWith("tokens ")) {
      String k =
          key(
              line.contains("in-process") ? "in-process" : "loopback",
              num(after(line, "threads")),
              num(after(line, "conns")),
              num(after(line, "batch")),
              num(after(line, "pipeline")));
      tokenKeys.add(k);
      figures("tok", k, rate(line), num(after(line, "p50")), num(after(line, "p99")));
    } else if (line.startsWith("append threads ")) {
      String row =
          key(
              num(after(line, "size")),
              num(after(line, "streams")),
              num(after(line, "threads")),
              num(after(line, "conns")));
      figures("app", key(tag, row), rate(line), num(after(line, "p50")), num(after(line, "p99")));
      appendRows.add(row);
    } else if (line.startsWith("read threads ")) {
      reads.add(new String[] {tag, line});
    } else if (line.startsWith("redis incr ")) {
      double p = num(after(line, "pipeline:"));
      String k = str(p == 0 ? 1 : p);
      figures(
          "incr",
          k,
          num(after(line, "ops/s:")),
          num(after(line, "p50_ms:")),
          num(after(line, "p99_ms:")));
      double c = num(after(line, "clients:"));
      fig.put(key("incrc", k), c == 0 ? 50 : c);
    } else if (line.startsWith("redis xadd ") || line.matches("^etcd (put|get) .*")) {
      String s = w.length > 2 ? w[2] : "";
      String t = w.length > 4 ? w[4] : "";
      String kind =
          line.startsWith("redis") ? "redis" : (line.contains("put") ? "etcd" : "etcdget");
      String c = kind.equals("redis") ? t : str(num(after(line, "conns:")));
      figures(
          "peer",
          key(kind, s, t, c),
          num(after(line, "ops/s:")),
          num(after(line, "p50_ms:")),
          num(after(line, "p99_ms:")));
    } else if (line.startsWith("redis xrange ")) {
      String s = w.length > 2 ? w[2] : "";
      String t = w.length > 4 ? w[4] : "";
      xrange.add(
          String.format(
              "| redis XRANGE COUNT %s, %s B, %s clients (%s connections) | %s | %s ms | %s ms |",
              str(num(after(line, "batch:"))),
              s,
              t,
              t,
              fmt(num(after(line, "entries/s:"))),
              ms(num(after(line, "p50_ms:"))),
              ms(num(after(line, "p99_ms:")))));
    }
  }

  private void figures(String kind, String k, double rate, double p50, double p99) {
    fig.put(key(kind, k), rate);
    fig.put(key(kind + "50", k), p50);
    fig.put(key(kind + "99", k), p99);
  }

  private Double get(Object... parts) {
    return fig.get(key(parts));
  }

  private String textOf(String kind, String id) {
    return text.getOrDefault(key(kind, id), "");
  }

  /** The load line (tag load-start or load-end), or null. */
  String load(String tag) {
    return load.get(tag);
  }

  boolean fullRun() {
    return !(tokenKeys.isEmpty() && appendRows.isEmpty() && reads.isEmpty());
  }

  // Read by StreamStoreFigures.
  Set<String> headlineIds() {
    return headlineIds;
  }

  Set<String> tokenKeys() {
    return tokenKeys;
  }

  Set<String> appendRows() {
    return appendRows;
  }

  List<String[]> reads() {
    return reads;
  }

  List<String> xrange() {
    return xrange;
  }

  Double figure(Object... parts) {
    return get(parts);
  }

  String text(String kind, String id) {
    return textOf(kind, id);
  }

  boolean hasText(String kind, String id) {
    return text.containsKey(key(kind, id));
  }

  static String keyOf(Object... parts) {
    return key(parts);
  }

  static String[] split(String key) {
    return key.split(SEP, -1);
  }

  static String fmtOf(Double v) {
    return fmt(v);
  }

  static String msOf(Double v) {
    return ms(v);
  }

  static String ratioOf(Double a, Double b) {
    return ratio(a, b);
  }

  static double rateOf(String line) {
    return rate(line);
  }
}
