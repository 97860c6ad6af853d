package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;

/**
 * The time windows of one load run, measured from the moment the load starts (after connecting):
 *
 * <ul>
 *   <li>cold: the first {@code cold} seconds of load. In a fresh client JVM against a fresh node
 *       this is what a user sees first (class loading, interpreted and C1 code, connection set-up);
 *   <li>warm: {@code duration} seconds that start {@code warmup} seconds after the load started.
 *       Operations that start before it are not counted in it;
 *   <li>per second: the units completed in each second of the whole run, so the ramp-up shows.
 * </ul>
 *
 * <p>Each window's figures print as text lines ({@link #coldLine}, {@link #timelineLine}, the warm
 * line is the caller's) or as JSON fields ({@link #putFigures}).
 *
 * <p>The windows may overlap (a cold window longer than the warm-up). An operation counts in the
 * cold window when it completed inside it, in the warm window when it started inside it.
 * Thread-safe: each {@link Slot} keeps its own counters and recorders under its own lock, so
 * completions of one slot may arrive on several threads, and load threads never contend for a
 * shared counter (the figures are summed over the slots when read).
 */
final class LoadWindows {
  private final long loadStart;
  private final long coldEnd;
  private final long measureFrom;
  private final long deadline;
  private final double coldSeconds;
  private final double jvmUptimeAtStart;
  private final int seconds;
  private final List<Slot> slots = new CopyOnWriteArrayList<>();
  private final List<LatencyRecorder> coldLatency = new CopyOnWriteArrayList<>();
  private final List<LatencyRecorder> warmLatency = new CopyOnWriteArrayList<>();

  /** The counters and recorders of one load thread, guarded by the slot itself. */
  static final class Slot {
    private final LatencyRecorder cold = new LatencyRecorder();
    private final LatencyRecorder warm = new LatencyRecorder();
    private final long[] perSecond;
    private long allUnits;
    private long coldUnits;
    private long warmUnits;
    private long lastWarmEnd = Long.MIN_VALUE;

    private Slot(int seconds) {
      perSecond = new long[seconds];
    }
  }

  /**
   * Starts the clock: the load starts now.
   *
   * @throws IllegalArgumentException if a length is negative, or the duration is not positive
   */
  LoadWindows(double cold, double warmup, double duration) {
    this(cold, warmup, duration, System.nanoTime());
  }

  /** Windows of a load that started at {@code loadStart} ({@link System#nanoTime()} time). */
  LoadWindows(double cold, double warmup, double duration, long loadStart) {
    if (!(cold >= 0) || !(warmup >= 0) || !(duration > 0)) {
      throw new IllegalArgumentException(
          "--cold and --warmup must be 0 or more seconds and --duration more than 0, got "
              + cold
              + ", "
              + warmup
              + ", "
              + duration);
    }
    this.coldSeconds = cold;
    this.jvmUptimeAtStart = ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0;
    this.loadStart = loadStart;
    this.coldEnd = loadStart + (long) (cold * 1e9);
    this.measureFrom = loadStart + (long) (warmup * 1e9);
    this.deadline = measureFrom + (long) (duration * 1e9);
    this.seconds = (int) Math.ceil(Math.max(cold, warmup + duration)) + 2;
  }

  /** A new slot for one load thread. */
  Slot newSlot() {
    Slot s = new Slot(seconds);
    slots.add(s);
    coldLatency.add(s.cold);
    warmLatency.add(s.warm);
    return s;
  }

  /** When the load started ({@link System#nanoTime()} time). */
  long loadStart() {
    return loadStart;
  }

  /** True until the warm window has ended (and the cold one, if it is longer). */
  boolean running() {
    return runningAt(System.nanoTime());
  }

  /**
   * Records one operation of {@code slot} that started at {@code t0}, ended at {@code t1} and did
   * {@code units}.
   */
  void completed(Slot slot, long t0, long t1, long units) {
    long second = (t1 - loadStart) / 1_000_000_000L;
    synchronized (slot) {
      slot.allUnits += units;
      if (second >= 0 && second < slot.perSecond.length) {
        slot.perSecond[(int) second] += units;
      }
      if (t1 < coldEnd) {
        slot.cold.record(t1 - t0);
        slot.coldUnits += units;
      }
      if (t0 >= measureFrom && t0 < deadline) {
        slot.warm.record(t1 - t0);
        slot.warmUnits += units;
        slot.lastWarmEnd = Math.max(slot.lastWarmEnd, t1);
      }
    }
  }

  /**
   * True until the warm window has ended (and the cold one, if it is longer), as of {@code now} (a
   * {@link System#nanoTime()} the caller has just read).
   */
  boolean runningAt(long now) {
    return now < Math.max(deadline, coldEnd);
  }

  /** Units completed since the load started, in any window or none (the progress lines). */
  long units() {
    return sum(s -> s.allUnits);
  }

  /** Units counted in the warm window. */
  long warmUnits() {
    return sum(s -> s.warmUnits);
  }

  private long coldUnits() {
    return sum(s -> s.coldUnits);
  }

  private long sum(ToLongFunction<Slot> counter) {
    long sum = 0;
    for (Slot s : slots) {
      synchronized (s) {
        sum += counter.applyAsLong(s);
      }
    }
    return sum;
  }

  /**
   * Length of the warm window in seconds: from its start to its end, or to the completion of the
   * last operation it counted if that came later (call after the load has ended).
   */
  double warmSeconds() {
    long end = deadline;
    for (Slot s : slots) {
      synchronized (s) {
        end = Math.max(end, s.lastWarmEnd);
      }
    }
    return Math.max(1e-9, (end - measureFrom) / 1e9);
  }

  /** Percentiles of the warm window's operations. */
  String warmLatency() {
    return LatencyRecorder.summary(warmLatency);
  }

  /**
   * The cold line, or null without a cold window: {@code cold LABEL: first C s of load, J s after
   * JVM start: N UNIT = R UNIT/s, latency_ms ...}.
   */
  String coldLine(String label, String unit) {
    if (coldSeconds <= 0) {
      return null;
    }
    return String.format(
        "cold %s: first %.1f s of load, %.1f s after JVM start: %d %s = %.0f %s/s, %s",
        label,
        coldSeconds,
        jvmUptimeAtStart,
        coldUnits(),
        unit,
        coldUnits() / coldSeconds,
        unit,
        LatencyRecorder.summary(coldLatency));
  }

  /**
   * {@code timeline LABEL: UNIT per second of load: a b c ...} (whole seconds that had any load).
   */
  String timelineLine(String label, String unit) {
    StringBuilder b =
        new StringBuilder("timeline ")
            .append(label)
            .append(": ")
            .append(unit)
            .append(" per second of load:");
    for (long units : timeline()) {
      b.append(' ').append(units);
    }
    return b.toString();
  }

  /** The units of each whole second of load so far. */
  private long[] timeline() {
    long elapsed = (System.nanoTime() - loadStart) / 1_000_000_000L;
    long[] out = new long[(int) Math.min(seconds, Math.max(0, elapsed))];
    for (Slot s : slots) {
      synchronized (s) {
        for (int i = 0; i < out.length; i++) {
          out[i] += s.perSecond[i];
        }
      }
    }
    return out;
  }

  /**
   * Puts the figures into {@code result}, the units under the name {@code ops}: the warm window's
   * {@code ops}, {@code seconds}, {@code ops_per_second} and {@code latency} (see {@link
   * LatencyRecorder#json}); {@code cold}, an object of the same figures for the cold window plus
   * {@code after_jvm_start_seconds}, and {@code timeline}, the units of each whole second of load,
   * both null without a cold window (as the text prints them only with one).
   */
  void putFigures(ObjectNode result) {
    double seconds = warmSeconds();
    long units = warmUnits();
    result
        .put("ops", units)
        .put("seconds", seconds)
        .put("ops_per_second", units / seconds)
        .set("latency", LatencyRecorder.json(warmLatency));
    if (coldSeconds <= 0) {
      result.putNull("cold").putNull("timeline");
      return;
    }
    result
        .putObject("cold")
        .put("ops", coldUnits())
        .put("seconds", coldSeconds)
        .put("ops_per_second", coldUnits() / coldSeconds)
        .put("after_jvm_start_seconds", jvmUptimeAtStart)
        .set("latency", LatencyRecorder.json(coldLatency));
    ArrayNode timeline = result.putArray("timeline");
    for (long u : timeline()) {
      timeline.add(u);
    }
  }
}
