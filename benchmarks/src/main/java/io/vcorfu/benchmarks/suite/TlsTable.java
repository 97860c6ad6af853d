package io.vcorfu.benchmarks.suite;

import static io.vcorfu.benchmarks.suite.Markdown.field;
import static io.vcorfu.benchmarks.suite.Markdown.fixed;
import static io.vcorfu.benchmarks.suite.Markdown.median;
import static io.vcorfu.benchmarks.suite.Markdown.number;
import static io.vcorfu.benchmarks.suite.Markdown.row;
import static io.vcorfu.benchmarks.suite.Markdown.thousands;

import io.vcorfu.benchmarks.CostMeter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The table of the cluster suite's tls part, made from its result lines: per system, the warm rates
 * of every round plaintext and with TLS, what TLS costs (one minus the TLS rounds' median rate over
 * the plaintext rounds' median), each round's own cost, and the median processor time per operation
 * each way. The rule is that TLS costs vcorfu no larger a fraction than it costs etcd; the
 * last line says whether it did. Pure: the same lines always give the same text.
 */
final class TlsTable {
  private static final List<String> SYSTEMS = List.of("vcorfu", "etcd");

  // "SYSTEM MODE" -> round -> figure.
  private final Map<String, Map<Integer, Double>> rates = new TreeMap<>();
  private final Map<String, Map<Integer, Double>> costs = new TreeMap<>();

  /** Reads one result line ({@code TAG | line}); lines of other parts are ignored. */
  void read(String tag, String line) {
    String[] t = Markdown.words(tag);
    if (t.length < 4 || !t[0].equals("tls") || !t[3].matches("[0-9]+")) {
      return;
    }
    String key = t[1] + " " + t[2];
    int round = Integer.parseInt(t[3]);
    boolean measured = t.length == 4;
    boolean cost = t.length == 5 && t[4].equals("cost");
    if (t[1].equals("vcorfu") && measured && line.startsWith("append threads")) {
      put(rates, key, round, field(line, "="));
    } else if (t[1].equals("etcd") && measured && line.startsWith("etcd put")) {
      put(rates, key, round, field(line, "ops/s:"));
    } else if ((measured || cost) && line.startsWith(CostMeter.APPEND_WARM_LINE)) {
      put(costs, key, round, field(line, "warm:"));
    }
  }

  private static void put(Map<String, Map<Integer, Double>> m, String key, int round, String v) {
    if (!v.isEmpty()) {
      m.computeIfAbsent(key, k -> new TreeMap<>()).put(round, number(v));
    }
  }

  /** The table, its rule line and a blank line; "" when no round was measured. */
  String render(int duration, int warmup) {
    if (rates.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "## What TLS costs durable 1 KB appends at 8 clients (warm: %d s after %d s of"
                + " load)%n%n",
            duration, warmup));
    b.append(
        "| system | plaintext ops/s, each round | TLS ops/s, each round | TLS costs (medians) |"
            + " each round | processor ms/op, plaintext / TLS (medians) |\n");
    b.append("| --- | --- | --- | ---: | --- | --- |\n");
    Map<String, Double> fraction = new TreeMap<>();
    for (String system : SYSTEMS) {
      Map<Integer, Double> plain = rates.getOrDefault(system + " plain", Map.of());
      Map<Integer, Double> tls = rates.getOrDefault(system + " tls", Map.of());
      if (plain.isEmpty() && tls.isEmpty()) {
        continue;
      }
      Double cost = tlsCost(median(plain.values()), median(tls.values()));
      if (cost != null) {
        fraction.put(system, cost);
      }
      List<String> each = new ArrayList<>();
      for (Map.Entry<Integer, Double> e : plain.entrySet()) {
        Double c = tlsCost(e.getValue(), tls.get(e.getKey()));
        if (c != null) {
          each.add(percent(c));
        }
      }
      b.append(
              row(
                  system,
                  rounds(plain),
                  rounds(tls),
                  cost == null ? "-" : "**" + percent(cost) + "**",
                  each.isEmpty() ? "-" : String.join(", ", each),
                  msPerOp(system + " plain") + " / " + msPerOp(system + " tls")))
          .append('\n');
    }
    b.append('\n');
    if (fraction.containsKey("vcorfu") && fraction.containsKey("etcd")) {
      boolean met = fraction.get("vcorfu") <= fraction.get("etcd");
      b.append(
          String.format(
              "TLS costs vcorfu %s of its rate and etcd %s: %s.%n%n",
              percent(fraction.get("vcorfu")),
              percent(fraction.get("etcd")),
              met ? "no larger a fraction (met)" : "a larger fraction (not met)"));
    }
    return b.toString();
  }

  private String msPerOp(String key) {
    Double m = median(costs.getOrDefault(key, Map.of()).values());
    return m == null ? "-" : fixed(m, 3);
  }

  private static String rounds(Map<Integer, Double> byRound) {
    if (byRound.isEmpty()) {
      return "-";
    }
    return byRound.values().stream()
        .map(v -> thousands(Double.toString(v)))
        .collect(Collectors.joining(" / "));
  }

  /** 1 - TLS / PLAIN, or null when either is missing or PLAIN is 0. */
  private static Double tlsCost(Double plain, Double tls) {
    return plain == null || tls == null || plain == 0 ? null : 1 - tls / plain;
  }

  private static String percent(double fraction) {
    return fixed(fraction * 100, 1) + "%";
  }
}
