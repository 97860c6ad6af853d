package io.vcorfu.benchmarks.suite;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The Figure 10 table of {@code vcorfu bench suite degraded}, as run-degraded.sh's python wrote it:
 * one row per {@code second N appends A reads R degraded_log_reads D failures F at T} line of
 * {@code bench stream-timeline}, with the events seen in that second (after T - 1, up to T). Pure.
 */
final class DegradedTimeline {
  static final String HEADER = "second\tappends\treads\tevent\tdegraded_log_reads\n";

  /** An event and when it was seen, seconds since the epoch as {@code date +%s.%N} prints them. */
  record Event(String at, String name) {
    /** NAME seen now. */
    static Event now(String name) {
      Instant t = Instant.now();
      return new Event(
          String.format(Locale.ROOT, "%d.%09d", t.getEpochSecond(), t.getNano()), name);
    }

    /** "AT NAME", as events.txt has it. */
    String line() {
      return at + " " + name;
    }
  }

  private DegradedTimeline() {}

  /** The table (tab-separated, with its header) of the timeline LINES and EVENTS. */
  static String tsv(List<String> lines, List<Event> events) {
    StringBuilder b = new StringBuilder(HEADER);
    for (String line : lines) {
      if (!line.startsWith("second ")) {
        continue;
      }
      String[] r = line.split("\\s+");
      double end = Double.parseDouble(r[11]);
      List<String> names = new ArrayList<>();
      for (Event e : events) {
        double at = Double.parseDouble(e.at());
        if (end - 1 < at && at <= end) {
          names.add(e.name());
        }
      }
      b.append(r[1])
          .append('\t')
          .append(r[3])
          .append('\t')
          .append(r[5])
          .append('\t')
          .append(String.join(",", names))
          .append('\t')
          .append(r[7])
          .append('\n');
    }
    return b.toString();
  }
}
