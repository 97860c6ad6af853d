package io.vcorfu.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Turns the raw output of {@code vcorfu bench collections} into markdown tables, one per mode,
 * shaped like the paper's figures: open latency by update count, abort rate by writer count,
 * clear-then-size latency by view. Lines that are not {@code collections mode=} lines are ignored;
 * configurations that could not run are listed after the tables.
 *
 * <pre>java -cp vcorfu-all.jar io.vcorfu.benchmarks.CollectionsSummary RAW_OUTPUT...</pre>
 */
final class CollectionsSummary {
  private static final String PREFIX = "collections mode=";
  private static final String FAILED = ": could not run: ";

  private CollectionsSummary() {}

  public static void main(String[] args) throws IOException {
    List<String> lines = new ArrayList<>();
    for (String a : args) {
      lines.addAll(Files.readAllLines(Path.of(a), StandardCharsets.UTF_8));
    }
    System.out.print(markdown(lines));
  }

  /**
   * Parses one result line into its fields: {@code k=v} tokens by key, and each timing group
   * ({@code open_read_ms p50 1.0 max 2.0}) as {@code open_read_ms.p50} and {@code
   * open_read_ms.max}.
   */
  static Map<String, String> fields(String line) {
    Map<String, String> kv = new HashMap<>();
    String[] tok = line.trim().split("\\s+");
    String group = null;
    for (int i = 1; i < tok.length; i++) {
      String t = tok[i];
      int eq = t.indexOf('=');
      if (eq > 0) {
        kv.put(t.substring(0, eq), t.substring(eq + 1));
        group = null;
      } else if (t.endsWith("_ms")) {
        group = t;
      } else if (group != null && i + 1 < tok.length) {
        kv.put(group + "." + t, tok[++i]);
      }
    }
    return kv;
  }

  /** The markdown summary of every result line in {@code lines}. */
  static String markdown(List<String> lines) {
    Table open =
        new Table(
            "Open a local view and read one key (ms, p50 / max) by updates written",
            "kind | buckets | dist");
    Table aborts =
        new Table(
            "Abort rate of 2-read 1-write transactions (committed / aborted) by writers",
            "kind | buckets | dist");
    Table clear =
        new Table(
            "clear() then size() (ms, p50 of open + clear + size; clear and size p50) by view",
            "kind | buckets");
    List<String> failed = new ArrayList<>();
    for (String line : lines) {
      if (!line.startsWith(PREFIX)) {
        continue;
      }
      if (line.contains(FAILED)) {
        failed.add(line.substring("collections ".length()));
        continue;
      }
      Map<String, String> f = fields(line);
      String mode = f.getOrDefault("mode", "");
      String kb = f.get("kind") + " | " + f.get("buckets");
      switch (mode) {
        case "open" ->
            open.put(
                kb + " | " + f.get("dist"),
                Long.parseLong(f.get("updates")),
                f.get("open_read_ms.p50") + " / " + f.get("open_read_ms.max") + wrong(f));
        case "aborts" ->
            aborts.put(
                kb + " | " + f.get("dist"),
                Long.parseLong(f.get("writers")),
                f.get("abort_rate")
                    + " ("
                    + f.get("committed")
                    + " / "
                    + f.get("aborted")
                    + ")"
                    + ("ok".equals(f.get("keys_check")) ? "" : " check " + f.get("keys_check")));
        case "clear" ->
            clear.put(
                kb,
                "local".equals(f.get("view")) ? 0 : 1,
                f.get("total_ms.p50")
                    + " (clear "
                    + f.get("clear_ms.p50")
                    + ", size "
                    + f.get("size_ms.p50")
                    + ")"
                    + wrong(f));
        default -> failed.add("unrecognized: " + line);
      }
    }
    StringBuilder out = new StringBuilder();
    open.render(out, c -> c + " updates");
    aborts.render(out, c -> c + " writers");
    clear.render(out, c -> c == 0 ? "local" : "remote");
    if (!failed.isEmpty()) {
      out.append("Could not run:\n\n");
      for (String f : failed) {
        out.append("- ").append(f).append('\n');
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static String wrong(Map<String, String> f) {
    String w = f.getOrDefault("wrong", "0");
    return "0".equals(w) ? "" : " (" + w + " wrong)";
  }

  /** Rows in first-seen order, columns in ascending order, one cell per (row, column). */
  private static final class Table {
    private final String title;
    private final String rowHeader;
    private final Map<String, Map<Long, String>> rows = new LinkedHashMap<>();
    private final TreeSet<Long> columns = new TreeSet<>();

    Table(String title, String rowHeader) {
      this.title = title;
      this.rowHeader = rowHeader;
    }

    void put(String row, long column, String cell) {
      rows.computeIfAbsent(row, r -> new HashMap<>()).put(column, cell);
      columns.add(column);
    }

    void render(StringBuilder out, java.util.function.LongFunction<String> columnName) {
      if (rows.isEmpty()) {
        return;
      }
      out.append("### ").append(title).append("\n\n| ").append(rowHeader);
      for (long c : columns) {
        out.append(" | ").append(columnName.apply(c));
      }
      out.append(" |\n|");
      int rowColumns = rowHeader.split("\\|").length;
      for (int i = 0; i < rowColumns + columns.size(); i++) {
        out.append(i < rowColumns ? "---|" : "---:|");
      }
      out.append('\n');
      for (Map.Entry<String, Map<Long, String>> r : rows.entrySet()) {
        out.append("| ").append(r.getKey());
        for (long c : columns) {
          out.append(" | ").append(r.getValue().getOrDefault(c, "-"));
        }
        out.append(" |\n");
      }
      out.append('\n');
    }
  }
}
