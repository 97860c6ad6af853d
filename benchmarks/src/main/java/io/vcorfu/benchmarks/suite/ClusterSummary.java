package io.vcorfu.benchmarks.suite;

import static io.vcorfu.benchmarks.suite.Markdown.after;
import static io.vcorfu.benchmarks.suite.Markdown.field;
import static io.vcorfu.benchmarks.suite.Markdown.ratio;
import static io.vcorfu.benchmarks.suite.Markdown.row;
import static io.vcorfu.benchmarks.suite.Markdown.thousands;

import io.vcorfu.benchmarks.CostMeter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The markdown tables of {@code vcorfu bench suite cluster} made from its result lines ({@code TAG
 * | line}, see {@link Results}): failover (one row per system and role killed or paused), durable
 * appends (vcorfu against etcd, 8 and 50 clients, with each warm append's cost), YCSB (C and B) and
 * what TLS costs each ({@link TlsTable}). A part without result lines has no table. Pure: the same
 * lines always give the same text.
 */
final class ClusterSummary {
  private static final List<String> CLIENTS = List.of("t8", "t50");
  private static final List<String> WORKLOADS = List.of("c", "b");

  private final Map<String, Failovers> failovers = new LinkedHashMap<>();
  private final Map<String, String> figures = new HashMap<>();
  private final Set<String> workloads = new LinkedHashSet<>();
  private final TlsTable tls = new TlsTable();

  /** The result lines' figures of one system and role across the rounds. */
  private static final class Failovers {
    final List<Double> killToAck = new ArrayList<>();
    final List<Double> gap = new ArrayList<>();
    final List<String> each = new ArrayList<>();
    long errors;
    int runs;
    int failed;
  }

  /** The tables of LINES, measured with the windows the run was given. */
  static String of(List<String> lines, Windows windows) {
    ClusterSummary s = new ClusterSummary();
    lines.forEach(s::read);
    return s.render(windows);
  }

  /** The windows the tables' headings name: appends' cold, warm-up, warm; YCSB's cold and warm. */
  record Windows(int cold, int warmup, int duration, int ycsbCold, int ycsbWarmAfter) {}

  private void read(String raw) {
    int bar = raw.indexOf(" | ");
    String tag = bar < 0 ? raw : raw.substring(0, bar);
    String line = bar < 0 ? "" : raw.substring(bar + 3);
    String[] t = Markdown.words(tag);
    String t1 = t.length > 0 ? t[0] : "";
    String t2 = t.length > 1 ? t[1] : "";
    String t3 = t.length > 2 ? t[2] : "";
    String t4 = t.length > 3 ? t[3] : "";
    tls.read(tag, line);
    if (t1.equals("failover") && line.startsWith("failover db ")) {
      Failovers f = failovers.computeIfAbsent(t2 + " " + t3, k -> new Failovers());
      String k = field(line, "kill_to_first_ack_ms");
      String g = field(line, "longest_gap_ms");
      if (k.equals("none")) {
        f.failed++;
      } else if (!k.isEmpty()) {
        f.killToAck.add(Markdown.number(k));
      }
      if (!g.equals("none") && !g.isEmpty()) {
        f.gap.add(Markdown.number(g));
      }
      f.each.add(k);
      f.errors += (long) Markdown.number(field(line, "errors"));
      f.runs++;
    } else if (t1.equals("append") && t2.equals("vcorfu") && line.startsWith("cold append")) {
      figures.put("append vcorfu cold " + t3, field(line, "="));
    } else if (t1.equals("append") && t2.equals("vcorfu") && line.startsWith("append threads")) {
      figures.put("append vcorfu warm " + t3, field(line, "="));
      figures.put("latency vcorfu " + t3, field(line, "p50") + " / " + field(line, "p99"));
    } else if (t1.equals("append") && t2.equals("etcd") && line.startsWith("etcd put")) {
      figures.put("append etcd " + t4 + " " + t3, field(line, "ops/s:"));
      figures.put("seconds etcd " + t4 + " " + t3, field(line, "seconds:"));
      if (t4.equals("warm")) {
        figures.put("latency etcd " + t3, field(line, "p50_ms:") + " / " + field(line, "p99_ms:"));
      }
    } else if (t1.equals("append") && line.startsWith(CostMeter.APPEND_WARM_LINE)) {
      figures.put("cost " + t2 + " " + t3, line.substring(CostMeter.APPEND_WARM_LINE.length()));
    } else if (t1.equals("ycsb") && line.startsWith("ycsb summary:")) {
      String key = t2 + " " + t3;
      figures.put("ycsb cold " + key, after(line, "run cold \\(first [0-9]+ s\\) [0-9.]+ ops/s"));
      figures.put("ycsb warm " + key, after(line, "run warm \\(after [0-9]+ s\\) [0-9.]+ ops/s"));
      figures.put("ycsb overall " + key, after(line, ", run [0-9]+ ops at [0-9.]+ ops/s"));
      figures.put(
          "ycsb errors " + key,
          line.replaceFirst(".*, run [0-9]+ ops at [0-9.]+ ops/s \\(", "")
              .replaceFirst(" errors\\).*", ""));
      workloads.add(t3);
    }
  }

  private String get(String key) {
    return figures.getOrDefault(key, "");
  }

  private String render(Windows w) {
    StringBuilder b = new StringBuilder();
    if (!failovers.isEmpty()) {
      b.append(
          "## Failover: kill -9 of one role to the first acknowledged write after it (ms)\n\n");
      b.append(
          "| system | killed | runs | kill -> first ack, median | range | longest gap between acks,"
              + " median | range | each run (kill -> first ack) | errors | not recovered |\n");
      b.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n");
      failovers.forEach(
          (key, f) -> {
            String[] kk = key.split(" ", 2);
            b.append(
                    row(
                        kk[0],
                        kk[1],
                        f.runs,
                        Markdown.medianAndRange(f.killToAck),
                        Markdown.medianAndRange(f.gap),
                        String.join(", ", f.each),
                        f.errors,
                        f.failed))
                .append('\n');
          });
      b.append('\n');
    }
    if (figures.containsKey("append vcorfu warm t8")
        || figures.containsKey("append vcorfu warm t50")) {
      appendTable(b, w);
    }
    if (!workloads.isEmpty()) {
      ycsbTable(b, w);
    }
    b.append(tls.render(w.duration(), w.warmup()));
    return b.toString();
  }

  private void appendTable(StringBuilder b, Windows w) {
    b.append(
        "## Durable 1 KB appends/s, T clients on T connections (vcorfu: T clients of the cluster;"
            + " etcd: T gRPC connections over the members)\n\n");
    b.append(
        String.format(
            Locale.ROOT,
            "| clients | vcorfu cold (first %d s) | etcd cold | ratio cold | vcorfu warm (%d s"
                + " after %d s) | etcd warm | ratio warm | vcorfu warm p50 / p99 ms | etcd warm p50"
                + " / p99 ms |\n",
            w.cold(),
            w.duration(),
            w.warmup()));
    b.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (String id : CLIENTS) {
      String vc = get("append vcorfu cold " + id);
      String ec = get("append etcd cold " + id);
      String vw = get("append vcorfu warm " + id);
      String ew = get("append etcd warm " + id);
      b.append(
              row(
                  id.substring(1),
                  thousands(vc),
                  thousands(ec),
                  ratio(vc, ec),
                  thousands(vw),
                  thousands(ew),
                  ratio(vw, ew),
                  get("latency vcorfu " + id),
                  get("latency etcd " + id)))
          .append('\n');
    }
    b.append(
        String.format(
            "%netcd runs lasted: t8 cold %s s, warm %s s; t50 cold %s s, warm %s s.%n%n",
            get("seconds etcd cold t8"),
            get("seconds etcd warm t8"),
            get("seconds etcd cold t50"),
            get("seconds etcd warm t50")));
    b.append(
        "What each warm append cost the whole machine (every process and the kernel; see `vcorfu"
            + " bench cost`):\n\n");
    for (String id : CLIENTS) {
      String n = id.substring(1);
      b.append("- ").append(n).append(" clients, vcorfu: ").append(get("cost vcorfu " + id));
      b.append("\n- ").append(n).append(" clients, etcd: ").append(get("cost etcd " + id));
      b.append('\n');
    }
    b.append('\n');
  }

  private void ycsbTable(StringBuilder b, Windows w) {
    b.append(
        String.format(
            "## YCSB, 8 threads, ops/s (cold = first %d s of the run phase, warm = after %d s)%n%n",
            w.ycsbCold(), w.ycsbWarmAfter()));
    b.append("| workload | figure | vcorfu | etcd | vcorfu/etcd |\n");
    b.append("| --- | --- | ---: | ---: | ---: |\n");
    for (String wl : WORKLOADS) {
      if (!workloads.contains(wl)) {
        continue;
      }
      for (String figure : List.of("cold", "warm", "overall")) {
        String v = get("ycsb " + figure + " vcorfu " + wl);
        String e = get("ycsb " + figure + " etcd " + wl);
        b.append(row(wl.toUpperCase(Locale.ROOT), figure, thousands(v), thousands(e), ratio(v, e)))
            .append('\n');
      }
    }
    b.append(
        String.format(
            "%nOperations that returned an error in the run phase: C vcorfu %s, etcd %s; B vcorfu"
                + " %s, etcd %s.%n%n",
            get("ycsb errors vcorfu c"),
            get("ycsb errors etcd c"),
            get("ycsb errors vcorfu b"),
            get("ycsb errors etcd b")));
  }

  /**
   * The run's load-average lines ({@code load}, {@code load-start}, {@code load-end}), indented.
   */
  static String loadLines(List<String> lines) {
    StringBuilder b = new StringBuilder();
    for (String l : lines) {
      if (l.matches("^(load|load-start|load-end) \\|.*")) {
        b.append("    ").append(l).append('\n');
      }
    }
    return b.toString();
  }
}
