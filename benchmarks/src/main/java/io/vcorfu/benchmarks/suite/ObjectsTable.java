package io.vcorfu.benchmarks.suite;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The summary table of {@code vcorfu bench suite objects}, made from its raw lines: one row per
 * {@code objects mode=...} line (ok, or FAILED when a later check failed or the run stopped early),
 * a row for a mode that could not run, and one for each {@code vcorfu:} error. Pure.
 */
final class ObjectsTable {
  static final String HEADER =
      "| mode | threads | objects | behind | ops/s | p50 ms | p99 ms | aborts | abort rate | checks"
          + " |\n"
          + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";

  private ObjectsTable() {}

  static String of(List<String> raw) {
    StringBuilder b = new StringBuilder(HEADER);
    String row = "";
    String status = "";
    // As the script's awk had them: kept from one row to the next when a row lacks them.
    String p50 = "";
    String p99 = "";
    for (String line : raw) {
      String[] f = Markdown.words(line);
      if (line.startsWith("objects mode=") && line.matches("^objects mode=.*could not run.*")) {
        row = flush(b, row, status);
        b.append("| ").append(f.length > 1 ? f[1] : "").append(" | could not run |\n");
        continue;
      }
      if (line.startsWith("objects mode=")) {
        row = flush(b, row, status);
        Map<String, String> kv = new HashMap<>();
        for (int i = 1; i < f.length; i++) {
          String[] p = f[i].split("=", -1);
          if (p.length == 2) {
            kv.put(p[0], p[1]);
          }
          if (f[i].equals("p50")) {
            p50 = i + 1 < f.length ? f[i + 1] : "";
          }
          if (f[i].equals("p99")) {
            p99 = i + 1 < f.length ? f[i + 1] : "";
          }
        }
        row =
            Markdown.row(
                kv.getOrDefault("mode", ""),
                kv.getOrDefault("threads", ""),
                kv.getOrDefault("objects", ""),
                kv.getOrDefault("behind", ""),
                kv.getOrDefault("ops_per_s", ""),
                p50,
                p99,
                kv.getOrDefault("aborts", ""),
                kv.getOrDefault("abort_rate", ""));
        status = "ok";
        continue;
      }
      if (line.matches("^check .*FAILED.*") || line.startsWith("stopped early")) {
        status = "FAILED";
      }
      if (line.startsWith("vcorfu:")) {
        row = flush(b, row, status);
        b.append("| (error) ").append(line).append(" |\n");
      }
    }
    flush(b, row, status);
    return b.toString();
  }

  private static String flush(StringBuilder b, String row, String status) {
    if (!row.isEmpty()) {
      b.append(row).append(' ').append(status).append(" |\n");
    }
    return "";
  }
}
