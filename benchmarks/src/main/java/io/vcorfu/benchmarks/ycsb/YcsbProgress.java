package io.vcorfu.benchmarks.ycsb;

import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A phase's progress, read from the status lines YCSB's client prints with {@code -s} ({@code ...
 * 10 sec: 123456 operations; ...}): the operations completed by each whole second since the phase
 * started. From them come the cold figure (the first seconds of a fresh client JVM) and the warm
 * figure (the rest of the phase after a warm-up). Thread-safe: the status lines arrive on a copier
 * thread while the figures are read on another.
 */
public final class YcsbProgress {
  private static final Pattern STATUS = Pattern.compile("(?:^|\\s)(\\d+) sec: (\\d+) operations;");

  private final TreeMap<Long, Long> operationsAt = new TreeMap<>();

  /** Takes one line of YCSB's standard error; lines that are not status lines are ignored. */
  public synchronized void accept(String line) {
    Matcher m = STATUS.matcher(line);
    if (m.find()) {
      operationsAt.put(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
    }
  }

  /**
   * Operations per second over the first {@code seconds} seconds of the phase (measured up to the
   * first status line at or after that second), or empty if the phase reported no such line (it
   * ended sooner, or ran without {@code -s}).
   */
  public synchronized OptionalDouble coldRate(long seconds) {
    Map.Entry<Long, Long> at = operationsAt.ceilingEntry(seconds);
    if (at == null || at.getKey() <= 0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(at.getValue() / (double) at.getKey());
  }

  /**
   * Operations per second from second {@code after} of the phase to its end, given the phase's
   * completed operations and run time (YCSB's report), or empty if the phase had no status line at
   * or after that second or ran on for less than {@code minSeconds} after it.
   */
  public synchronized OptionalDouble warmRate(
      long after, long totalOperations, double runSeconds, double minSeconds) {
    Map.Entry<Long, Long> at = operationsAt.ceilingEntry(after);
    if (at == null) {
      return OptionalDouble.empty();
    }
    double seconds = runSeconds - at.getKey();
    if (seconds < minSeconds) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of((totalOperations - at.getValue()) / seconds);
  }
}
