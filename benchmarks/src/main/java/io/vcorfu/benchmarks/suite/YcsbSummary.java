package io.vcorfu.benchmarks.suite;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The markdown tables of {@code vcorfu bench suite ycsb} made from every (workload, database)
 * pair's exit status and YCSB output: throughput (cold, warm, overall) and the 99th percentile
 * latency of each operation type, with the ratios vcorfu/redis and vcorfu/etcd; then the pairs that
 * failed or had operations return ERROR. A pair that did not exit 0 shows "failed" and no ratio.
 * Pure.
 */
final class YcsbSummary {
  static final List<String> DBS = List.of("vcorfu", "redis", "etcd");
  private static final Pattern COLD =
      Pattern.compile("run cold \\(first [0-9]+ s\\) [0-9.]+ ops/s");
  private static final Pattern WARM =
      Pattern.compile("run warm \\(after [0-9]+ s\\) [0-9.]+ ops/s");

  /** One pair: its exit status ("missing" when it has none) and its standard output. */
  record Pair(String workload, String db, String status, List<String> out) {}

  private final Map<String, String> figures = new HashMap<>();
  private final Map<String, Double> errors = new HashMap<>();
  private final Map<String, List<String>> operations = new LinkedHashMap<>();
  private final Map<String, String> status = new HashMap<>();

  static String of(List<String> workloads, List<Pair> pairs) {
    YcsbSummary s = new YcsbSummary();
    pairs.forEach(s::read);
    return s.render(workloads);
  }

  private void read(Pair p) {
    String key = p.workload() + " " + p.db();
    status.put(key, p.status());
    boolean run = false;
    for (String line : p.out()) {
      if (line.startsWith("ycsb: run phase")) {
        run = true;
      } else if (line.startsWith("ycsb summary: ")) {
        rate(line, COLD).ifPresent(v -> figures.put("cold " + key, v));
        rate(line, WARM).ifPresent(v -> figures.put("warm " + key, v));
      } else if (line.startsWith("ycsb: ")) {
        continue;
      } else if (run && line.startsWith("[")) {
        String[] f = line.split(", *");
        if (f.length < 3) {
          continue;
        }
        String sec = f[0].substring(1, f[0].length() - 1);
        if (sec.equals("OVERALL") && f[1].equals("Throughput(ops/sec)")) {
          figures.put("overall " + key, Markdown.fixed(Markdown.number(f[2]), 1));
        } else if (f[1].equals("99thPercentileLatency(us)")
            && !sec.startsWith("CLEANUP")
            && !sec.endsWith("-FAILED")) {
          figures.put("p99 " + key + " " + sec, f[2]);
          List<String> ops = operations.computeIfAbsent(p.workload(), w -> new ArrayList<>());
          if (!ops.contains(sec)) {
            ops.add(sec);
          }
        } else if (f[1].equals("Return=ERROR")) {
          errors.merge(key, Markdown.number(f[2]), Double::sum);
        }
      }
    }
  }

  private static Optional<String> rate(String line, Pattern p) {
    Matcher m = p.matcher(line);
    if (!m.find()) {
      return Optional.empty();
    }
    String s = m.group().replaceFirst(" ops/s$", "");
    return Optional.of(Markdown.fixed(Markdown.number(s.substring(s.lastIndexOf(' ') + 1)), 1));
  }

  private boolean ok(String w, String db) {
    return "0".equals(status.get(w + " " + db));
  }

  private String cell(String w, String db, String figure) {
    String v = figures.getOrDefault(figure, "");
    return !ok(w, db) ? "failed" : v.isEmpty() ? "-" : v;
  }

  private String ratio(String w, String peer, String a, String b) {
    String x = figures.getOrDefault(a, "");
    String y = figures.getOrDefault(b, "");
    return ok(w, "vcorfu") && ok(w, peer) && !x.isEmpty() && !y.isEmpty() && Markdown.number(y) > 0
        ? Markdown.fixed(Markdown.number(x) / Markdown.number(y), 2)
        : "-";
  }

  private String row(String w, String label, String figure, String suffix) {
    return Markdown.row(
        w.toUpperCase(Locale.ROOT),
        label,
        cell(w, "vcorfu", figure + " " + w + " vcorfu" + suffix),
        cell(w, "redis", figure + " " + w + " redis" + suffix),
        cell(w, "etcd", figure + " " + w + " etcd" + suffix),
        ratio(
            w,
            "redis",
            figure + " " + w + " vcorfu" + suffix,
            figure + " " + w + " redis" + suffix),
        ratio(
            w, "etcd", figure + " " + w + " vcorfu" + suffix, figure + " " + w + " etcd" + suffix));
  }

  private String render(List<String> workloads) {
    StringBuilder b = new StringBuilder("## Throughput (ops/s)\n\n");
    b.append("| workload | figure | vcorfu | redis | etcd | vcorfu/redis | vcorfu/etcd |\n");
    b.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (String w : workloads) {
      for (String figure : List.of("cold", "warm", "overall")) {
        b.append(row(w, figure, figure, "")).append('\n');
      }
    }
    b.append("\n## 99th percentile latency (us) per operation type\n\n");
    b.append("| workload | operation | vcorfu | redis | etcd | vcorfu/redis | vcorfu/etcd |\n");
    b.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (String w : workloads) {
      for (String op : operations.getOrDefault(w, List.of())) {
        b.append(row(w, op, "p99", " " + op)).append('\n');
      }
    }
    StringBuilder bad = new StringBuilder();
    for (String w : workloads) {
      for (String db : DBS) {
        String st = status.getOrDefault(w + " " + db, "");
        double errs = errors.getOrDefault(w + " " + db, 0.0);
        String name = w.toUpperCase(Locale.ROOT);
        if (!st.equals("0")) {
          bad.append("- workload ").append(name).append(" on ").append(db);
          bad.append(": exit status ").append(st).append('\n');
        } else if (errs > 0) {
          bad.append("- workload ").append(name).append(" on ").append(db).append(": ");
          bad.append((long) errs).append(" operations returned ERROR\n");
        }
      }
    }
    b.append('\n');
    if (bad.length() == 0) {
      b.append("Every (workload, database) pair finished with no operation returning ERROR.\n");
    } else {
      b.append("Failed or erroneous pairs (see the raw output):\n\n").append(bad);
    }
    return b.toString();
  }
}
