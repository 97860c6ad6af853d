package io.vcorfu.benchmarks.suite;

import static io.vcorfu.benchmarks.suite.Markdown.fixed;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The result lines of {@code vcorfu bench suite rebuild}, made from the foreground client's
 * progress lines ({@code progress SECONDS acked N total N errors N p99_ms X}, one a second) and the
 * times the run took (seconds on one clock). Pure.
 */
final class RebuildReport {
  private RebuildReport() {}

  /** Seconds of foreground load a heal case keeps measuring after full strength. */
  static final int AFTER_FULL_S = 10;

  /** One copy's times: the restart (or add-node, or kill), first entry copied, copy done, full. */
  record Times(double t0, double firstCopy, double copyDone, double full) {}

  /** The foreground's appends of each second and its 99th percentile (null: none that second). */
  record Foreground(List<Double> acks, List<Double> p99s, List<String> p99Texts) {
    static Foreground of(List<String> log) {
      List<Double> acks = new ArrayList<>();
      List<Double> p99s = new ArrayList<>();
      List<String> texts = new ArrayList<>();
      for (String line : log) {
        String[] f = Markdown.words(line);
        if (f.length > 3 && f[0].equals("progress")) {
          acks.add(Double.parseDouble(f[3]));
          boolean has = f.length > 9 && !f[9].equals("-");
          p99s.add(has ? Double.parseDouble(f[9]) : null);
          texts.add(f.length > 9 ? f[9] : "-");
        }
      }
      return new Foreground(acks, p99s, texts);
    }
  }

  /**
   * {@code rebuild CASE restart_to_full_s ...}: the copy's length, size and rate, and the
   * foreground's appends per second between T0 and full strength (the load started LEAD s before
   * T0) and during the copy itself, each also as a fraction of BASELINE; and its appends per second
   * over the second half of the LEAD seconds before T0 (the first half is the fresh client's own
   * warm-up): in the heal cases the chains at R - 1, the victim down, which is what a copy made
   * before the victim joins its chains would run beside; and over the {@link #AFTER_FULL_S} seconds
   * after full strength (nan when the load stopped there), where a joined node's recompilations
   * still weigh on the foreground though the rebuild is over.
   */
  static String line(
      String name,
      Times t,
      long copied,
      long bytes,
      double baseline,
      String baselineP99,
      Foreground fg,
      int lead) {
    int n = Math.max(1, (int) Math.rint(t.full() - t.t0()));
    double during = mean(slice(fg.acks(), lead, lead + n));
    double before = mean(slice(fg.acks(), lead / 2, lead));
    List<Double> afterSeconds = slice(fg.acks(), lead + n, lead + n + AFTER_FULL_S);
    double after = afterSeconds.isEmpty() ? Double.NaN : mean(afterSeconds);
    int c0 = lead + Math.max(0, (int) Math.rint(t.firstCopy() - t.t0()));
    int c1 = lead + Math.max(0, (int) Math.rint(t.copyDone() - t.t0()));
    // A copy after the join shorter than the foreground's seconds (the copy before it took the
    // rest) has no second of its own: nan, not 0.
    List<Double> copySeconds = slice(fg.acks(), c0, Math.max(c0 + 1, c1));
    double copying = copySeconds.isEmpty() ? Double.NaN : mean(copySeconds);
    List<Double> p99 = new ArrayList<>();
    for (Double p : slice(fg.p99s(), lead, lead + n)) {
      if (p != null) {
        p99.add(p);
      }
    }
    p99.sort(null);
    double median = p99.isEmpty() ? Double.NaN : p99.get(p99.size() / 2);
    double worst = p99.isEmpty() ? Double.NaN : p99.get(p99.size() - 1);
    double copyS = Math.max(t.copyDone() - t.firstCopy(), 1e-3);
    double mb = bytes / 1048576.0;
    return "rebuild "
        + name
        + " restart_to_full_s "
        + fixed(t.full() - t.t0(), 2)
        + " copied_slots "
        + copied
        + " copied_mb "
        + fixed(mb, 1)
        + " copy_mb_s "
        + fixed(mb / copyS, 1)
        + " copy_slots_s "
        + fixed(copied / copyS, 0)
        + " foreground_appends_s "
        + fixed(during, 0)
        + " baseline_appends_s "
        + fixed(baseline, 0)
        + " fraction "
        + fixed(baseline != 0 ? during / baseline : 0, 2)
        + appendsAndFraction("during_copy", copying, baseline)
        + " p99_ms_median_second "
        + oneDecimal(median)
        + " p99_ms_worst_second "
        + oneDecimal(worst)
        + " baseline_p99_ms "
        + baselineP99
        + " foreground_before_appends_s "
        + fixed(before, 0)
        + " fraction_before "
        + fixed(baseline != 0 ? before / baseline : 0, 2)
        + appendsAndFraction("after_full", after, baseline);
  }

  /**
   * {@code " foreground_WHAT_appends_s A fraction_WHAT F"}: the foreground's mean APPENDS a second
   * over some seconds and its fraction of BASELINE; nan for both when there were no such seconds.
   */
  private static String appendsAndFraction(String what, double appends, double baseline) {
    boolean none = Double.isNaN(appends);
    return " foreground_"
        + what
        + "_appends_s "
        + (none ? "nan" : fixed(appends, 0))
        + " fraction_"
        + what
        + " "
        + (none ? "nan" : fixed(baseline != 0 ? appends / baseline : 0, 2));
  }

  /**
   * The timeline TSV ({@code second appends rebuild_mib event p99_ms}), one row per second of the
   * foreground's load from T_START: the rebuild's MiB copied as last sampled (SAMPLES: time and
   * bytes) and the events (time and name) of that second.
   */
  static String timeline(
      double tStart,
      Foreground fg,
      List<double[]> samples,
      List<Map.Entry<Double, String>> events) {
    Map<Integer, Double> mb = new TreeMap<>();
    for (double[] s : samples) {
      mb.put((int) (s[0] - tStart), s[1] / 1048576);
    }
    Map<Integer, List<String>> ev = new TreeMap<>();
    for (Map.Entry<Double, String> e : events) {
      ev.computeIfAbsent((int) (e.getKey() - tStart), k -> new ArrayList<>()).add(e.getValue());
    }
    StringBuilder b = new StringBuilder("second\tappends\trebuild_mib\tevent\tp99_ms\n");
    double last = 0;
    for (int sec = 0; sec < fg.acks().size(); sec++) {
      last = mb.getOrDefault(sec, last);
      b.append(sec + 1).append('\t').append((long) fg.acks().get(sec).doubleValue()).append('\t');
      b.append(fixed(last, 1)).append('\t');
      b.append(String.join(",", ev.getOrDefault(sec, List.of()))).append('\t');
      b.append(fg.p99Texts().get(sec)).append('\n');
    }
    return b.toString();
  }

  /**
   * {@code pause ROUND before_appends_s X after_appends_s Y fraction F worst_second_appends_s W
   * p99_ms_worst_second P pause_to_full_s S}: the foreground's appends per second over the BEFORE
   * seconds before a node's pause (begun AT seconds into the foreground's load) and over the WINDOW
   * seconds from it, their ratio, the window's worst second and worst 99th percentile, and the
   * seconds from the pause to full strength.
   */
  static String pauseLine(
      int round, Foreground fg, double at, int before, int window, double pauseToFullS) {
    int p = (int) Math.rint(at);
    double was = mean(slice(fg.acks(), p - before, p));
    List<Double> after = slice(fg.acks(), p, p + window);
    double is = mean(after);
    double worst = after.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    double p99 =
        slice(fg.p99s(), p, p + window).stream()
            .filter(v -> v != null)
            .mapToDouble(Double::doubleValue)
            .max()
            .orElse(Double.NaN);
    return "pause "
        + round
        + " before_appends_s "
        + fixed(was, 0)
        + " after_appends_s "
        + fixed(is, 0)
        + " fraction "
        + fixed(was != 0 ? is / was : 0, 2)
        + " worst_second_appends_s "
        + (Double.isNaN(worst) ? "nan" : fixed(worst, 0))
        + " p99_ms_worst_second "
        + oneDecimal(p99)
        + " pause_to_full_s "
        + fixed(pauseToFullS, 2);
  }

  private static final java.util.regex.Pattern PRE_JOIN =
      java.util.regex.Pattern.compile(
          "copied (\\d+) slots \\((\\d+) bytes\\) in (\\d+) ms before joining");

  /**
   * {@code pre_join_mb M pre_join_s S copy_all_mb_s R}: what the restarted node's last copy before
   * it joined its chains installed (from its log, {@code SERVER_LOG}; zeros when it made none) and
   * the rate of that copy and the rebuild after the join together ({@code postBytes}) over the
   * restart to full strength.
   */
  static String preJoinFields(List<String> serverLog, double restartToFullS, long postBytes) {
    long[] last = lastPreJoin(serverLog);
    long bytes = last[0];
    long millis = last[1];
    double mb = bytes / 1048576.0;
    double all = (bytes + postBytes) / 1048576.0;
    return " pre_join_mb "
        + fixed(mb, 1)
        + " pre_join_s "
        + fixed(millis / 1000.0, 2)
        + " copy_all_mb_s "
        + fixed(restartToFullS > 0 ? all / restartToFullS : 0, 1);
  }

  /** The bytes the restarted node's last copy before joining installed (its log), else 0. */
  static long preJoinBytes(List<String> serverLog) {
    return lastPreJoin(serverLog)[0];
  }

  /** The bytes and milliseconds of the last copy before joining that the log names; else zeros. */
  private static long[] lastPreJoin(List<String> serverLog) {
    long[] last = {0, 0};
    for (String line : serverLog) {
      java.util.regex.Matcher m = PRE_JOIN.matcher(line);
      if (m.find()) {
        last[0] = Long.parseLong(m.group(2));
        last[1] = Long.parseLong(m.group(3));
      }
    }
    return last;
  }

  /**
   * {@code copy mb M seconds S mb_s R machine_proc_s P per_100mb X restarted_proc_s N
   * restarted_compile_s C copy_work_per_100mb W sources_proc_s O}: what a wiped node's copy of
   * BYTES (before and after its join; MB as the other lines count them, MiB) cost over the SECONDS
   * from its launch to full strength: the machine's busy processor-seconds (the kernel's included)
   * in all and per 100 MB, the restarted node's (its compiler threads' part apart, and the rest per
   * 100 MB: the copy's own work with the JVM's start) and the two sources'.
   */
  static String copyLine(
      double seconds,
      long bytes,
      double machine,
      double restarted,
      double compilers,
      double sources) {
    double mb = bytes / 1048576.0;
    return "copy mb "
        + fixed(mb, 0)
        + " seconds "
        + fixed(seconds, 1)
        + " mb_s "
        + fixed(seconds > 0 ? mb / seconds : 0, 1)
        + " machine_proc_s "
        + fixed(machine, 1)
        + " per_100mb "
        + fixed(mb > 0 ? machine * 100 / mb : 0, 2)
        + " restarted_proc_s "
        + fixed(restarted, 1)
        + " restarted_compile_s "
        + fixed(compilers, 1)
        + " copy_work_per_100mb "
        + fixed(mb > 0 ? (restarted - compilers) * 100 / mb : 0, 2)
        + " sources_proc_s "
        + fixed(sources, 1);
  }

  /** The figure before the first word ending in "/s" of a bench append line, or "". */
  static String rate(String line) {
    String[] f = Markdown.words(line);
    for (int i = 1; i < f.length; i++) {
      if (f[i].endsWith("/s")) {
        return f[i - 1];
      }
    }
    return "";
  }

  private static String oneDecimal(double v) {
    return Double.isNaN(v) ? "nan" : fixed(v, 1);
  }

  private static <T> List<T> slice(List<T> list, int from, int to) {
    int a = Math.min(Math.max(from, 0), list.size());
    int b = Math.min(Math.max(to, a), list.size());
    return list.subList(a, b);
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
  }
}
