package io.vcorfu.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What a stretch of load cost the whole machine, read from counters outside the processes under
 * test, so that vcorfu and a peer are charged alike: processor time of every process and of the
 * kernel ({@code /proc/stat}), TCP segments sent ({@code /proc/net/snmp}, on loopback every message
 * costs at least one), context switches ({@code /proc/stat}: every time a processor went from one
 * thread to another, so every wakeup of a thread that had to wait), and fsyncs and requests as the
 * servers count them on their Prometheus {@code /metrics} pages (summed over the named counters of
 * every page given).
 *
 * <p>A {@link Snapshot} is taken before and after; {@link #line} divides the difference by the
 * operations done in between. Snapshots also print and parse as one line ({@link
 * Snapshot#toString}, {@link Snapshot#parse}), so that a script can take them around a peer's own
 * benchmark tool ({@code vcorfu bench cost}); a process that is idle while the peer runs (a suite)
 * takes them itself with {@link #around}, so that no process starts inside the measured window.
 */
public final class CostMeter {
  /** The label of a load's warm window, as every suite reads it back. */
  public static final String APPEND_WARM = "append warm";

  /** How the cost line of {@link #APPEND_WARM} starts. */
  public static final String APPEND_WARM_LINE = "cost " + APPEND_WARM + ": ";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final List<URI> metrics;
  private final List<String> fsyncCounters;
  private final List<String> requestCounters;

  /**
   * A meter reading {@code metrics} pages (none: only the machine's counters), summing the counters
   * named {@code fsyncCounters} as fsyncs and {@code requestCounters} as requests.
   */
  public CostMeter(List<URI> metrics, List<String> fsyncCounters, List<String> requestCounters) {
    this.metrics = List.copyOf(metrics);
    this.fsyncCounters = List.copyOf(fsyncCounters);
    this.requestCounters = List.copyOf(requestCounters);
  }

  /** The counters of vcorfu nodes' {@code /metrics} pages. */
  static CostMeter vcorfu(List<URI> metrics) {
    return new CostMeter(
        metrics, List.of("vcorfu_fsync_seconds_count"), List.of("vcorfu_requests_seconds_count"));
  }

  /**
   * The machine's counters at one moment: processor ticks (busy, of which user, system and softirq;
   * and all), TCP segments sent, context switches (-1 where not read), fsyncs and requests (-1
   * without metrics pages).
   */
  record Snapshot(
      long busy,
      long user,
      long system,
      long softirq,
      long all,
      long segments,
      long switches,
      double fsyncs,
      double requests,
      long selfNanos) {

    /**
     * {@code snapshot busy=B user=U system=S softirq=Q all=A segments=G switches=W fsyncs=F
     * requests=R self=N}.
     */
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "snapshot busy=%d user=%d system=%d softirq=%d all=%d segments=%d switches=%d"
              + " fsyncs=%.0f requests=%.0f self=%d",
          busy,
          user,
          system,
          softirq,
          all,
          segments,
          switches,
          fsyncs,
          requests,
          selfNanos);
    }

    /**
     * This snapshot without the measuring process's time: for snapshots taken by a process other
     * than the benchmark client (around a peer's tool), whose own time says nothing.
     */
    Snapshot withoutSelf() {
      return new Snapshot(
          busy, user, system, softirq, all, segments, switches, fsyncs, requests, -1);
    }

    /**
     * The snapshot {@link #toString} printed ({@code switches} -1 when the line has none, as a
     * snapshot printed by an earlier build).
     */
    static Snapshot parse(String line) {
      long[] v = {0, 0, 0, 0, 0, 0, -1};
      double[] d = new double[2];
      long self = -1;
      String[] names = {"busy", "user", "system", "softirq", "all", "segments", "switches"};
      for (String field : line.trim().split("\\s+")) {
        int eq = field.indexOf('=');
        if (eq < 0) {
          continue;
        }
        String name = field.substring(0, eq);
        String value = field.substring(eq + 1);
        for (int i = 0; i < names.length; i++) {
          if (names[i].equals(name)) {
            v[i] = Long.parseLong(value);
          }
        }
        if (name.equals("self")) {
          self = Long.parseLong(value);
        } else if (name.equals("fsyncs")) {
          d[0] = Double.parseDouble(value);
        } else if (name.equals("requests")) {
          d[1] = Double.parseDouble(value);
        }
      }
      return new Snapshot(v[0], v[1], v[2], v[3], v[4], v[5], v[6], d[0], d[1], self);
    }
  }

  /** What {@link #around} measures: a peer's run, started and awaited by the calling thread. */
  public interface Window {
    void run() throws IOException, InterruptedException;
  }

  /**
   * The cost line ({@link #line}) of {@code window}'s {@code ops} operations, from snapshots this
   * process takes right before and right after it. The process's own time is not set apart: it is
   * meant to wait while the window runs.
   */
  public String around(String label, long ops, Window window)
      throws IOException, InterruptedException {
    Snapshot before = take().withoutSelf();
    window.run();
    Snapshot after = take().withoutSelf();
    return line(label, before, after, ops);
  }

  /** Reads every counter now. */
  Snapshot take() throws IOException, InterruptedException {
    List<String> stat = Files.readAllLines(Path.of("/proc/stat"));
    long[] cpu = cpuTicks(stat);
    long switches = contextSwitches(stat);
    double fsyncs = metrics.isEmpty() ? -1 : 0;
    double requests = metrics.isEmpty() ? -1 : 0;
    for (URI page : metrics) {
      String text =
          HTTP.send(
                  HttpRequest.newBuilder(page).timeout(Duration.ofSeconds(5)).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      fsyncs += sum(text, fsyncCounters);
      requests += sum(text, requestCounters);
    }
    return new Snapshot(
        cpu[0],
        cpu[1],
        cpu[2],
        cpu[3],
        cpu[4],
        tcpSegmentsSent(),
        switches,
        fsyncs,
        requests,
        selfNanos());
  }

  /**
   * {@code cost LABEL: P ms processor per op (user U, system S, softirq Q; the client process C;
   * the machine B% busy), G TCP segments per op, W context switches per op, F fsyncs per op, R
   * requests per op} over {@code ops} operations between the two snapshots ({@code -} for what was
   * not counted).
   */
  static String line(String label, Snapshot before, Snapshot after, long ops) {
    double tick = 1000.0 / ticksPerSecond();
    double n = Math.max(1, ops);
    long all = Math.max(1, after.all() - before.all());
    return String.format(
        Locale.ROOT,
        "cost %s: %.3f ms processor per op (user %.3f, system %.3f, softirq %.3f; %s; the"
            + " machine %.0f%% busy), %.2f TCP segments per op, %s context switches per op, %s"
            + " fsyncs per op, %s requests per op, over %d ops",
        label,
        (after.busy() - before.busy()) * tick / n,
        (after.user() - before.user()) * tick / n,
        (after.system() - before.system()) * tick / n,
        (after.softirq() - before.softirq()) * tick / n,
        before.selfNanos() < 0 || after.selfNanos() < 0
            ? "the client process not measured"
            : String.format(
                Locale.ROOT,
                "the client process %.3f",
                (after.selfNanos() - before.selfNanos()) / 1e6 / n),
        100.0 * (after.busy() - before.busy()) / all,
        (after.segments() - before.segments()) / n,
        before.switches() < 0 || after.switches() < 0
            ? "-"
            : String.format(Locale.ROOT, "%.2f", (after.switches() - before.switches()) / n),
        perOp(before.fsyncs(), after.fsyncs(), n),
        perOp(before.requests(), after.requests(), n),
        ops);
  }

  private static String perOp(double before, double after, double n) {
    return before < 0 || after < 0 ? "-" : String.format(Locale.ROOT, "%.3f", (after - before) / n);
  }

  /**
   * The processor time this process has used, in nanoseconds (-1 where the JVM cannot tell): the
   * benchmark client's own share of the machine's.
   */
  static long selfNanos() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** USER_HZ: the unit of {@code /proc/stat}; 100 on every Linux this runs on. */
  private static double ticksPerSecond() {
    return 100.0;
  }

  /** busy, user (with nice), system, softirq (with irq) and all ticks of the machine. */
  public static long[] cpuTicks() throws IOException {
    return cpuTicks(Files.readAllLines(Path.of("/proc/stat")));
  }

  /** {@link #cpuTicks()} from the lines of {@code /proc/stat}. */
  private static long[] cpuTicks(List<String> stat) throws IOException {
    for (String l : stat) {
      if (l.startsWith("cpu ")) {
        String[] f = l.trim().split("\\s+");
        long user = Long.parseLong(f[1]) + Long.parseLong(f[2]);
        long system = Long.parseLong(f[3]);
        long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
        long irq = Long.parseLong(f[6]) + Long.parseLong(f[7]);
        long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
        long busy = user + system + irq + steal;
        return new long[] {busy, user, system, irq, busy + idle};
      }
    }
    throw new IOException("/proc/stat has no cpu line");
  }

  /**
   * The {@code ctxt} line of {@code /proc/stat}'s lines: context switches on every processor since
   * boot.
   */
  private static long contextSwitches(List<String> stat) throws IOException {
    for (String l : stat) {
      if (l.startsWith("ctxt ")) {
        return Long.parseLong(l.substring(5).trim());
      }
    }
    throw new IOException("/proc/stat has no ctxt line");
  }

  /** {@code Tcp: OutSegs} of {@code /proc/net/snmp}. */
  static long tcpSegmentsSent() throws IOException {
    List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp"));
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (lines.get(i).startsWith("Tcp:") && lines.get(i + 1).startsWith("Tcp:")) {
        String[] names = lines.get(i).trim().split("\\s+");
        String[] values = lines.get(i + 1).trim().split("\\s+");
        for (int k = 0; k < names.length; k++) {
          if (names[k].equals("OutSegs")) {
            return Long.parseLong(values[k]);
          }
        }
      }
    }
    throw new IOException("/proc/net/snmp has no Tcp OutSegs");
  }

  /** The sum of every sample of the counters named in {@code names} on a Prometheus page. */
  static double sum(String page, List<String> names) {
    double total = 0;
    for (String l : page.split("\n")) {
      if (l.isEmpty() || l.charAt(0) == '#') {
        continue;
      }
      int end = l.indexOf('{');
      int space = l.indexOf(' ');
      String name = l.substring(0, end >= 0 && end < space ? end : Math.max(space, 0));
      if (names.contains(name)) {
        total += Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }
}
