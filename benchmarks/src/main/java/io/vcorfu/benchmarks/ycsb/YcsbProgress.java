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
 * figure (the phase's load after a warm-up, its clients' cleanup left out). Thread-safe: the status
 * lines arrive on a copier thread while the figures are read on another.
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
   * Operations per second from second {@code after} of the phase to its last whole second of load,
   * or empty if the phase had no status line at or after that second or its load ran on for less
   * than {@code minSeconds} after it.
   *
   * <p>The load's last whole second is the last status line that still counts fewer operations than
   * the phase completed ({@code totalOperations}, YCSB's report): what follows it is the phase's
   * last operations finishing and each client's cleanup, which YCSB's run time includes (closing a
   * vcorfu runtime finishes the trims its checkpoints allow, up to about two seconds; a Redis
   * connection closes at once), and which is not load. Without such a line (a phase that printed
   * none between {@code after} and its end) the rate runs to the phase's run time.
   */
  public synchronized OptionalDouble warmRate(
      long after, long totalOperations, double runSeconds, double minSeconds) {
    Map.Entry<Long, Long> at = operationsAt.ceilingEntry(after);
    if (at == null) {
      return OptionalDouble.empty();
    }
    Map.Entry<Long, Long> end = null;
    for (Map.Entry<Long, Long> e : operationsAt.tailMap(at.getKey(), false).entrySet()) {
      if (e.getValue() < totalOperations) {
        end = e;
      }
    }
    if (end != null) {
      long seconds = end.getKey() - at.getKey();
      return seconds < minSeconds
          ? OptionalDouble.empty()
          : OptionalDouble.of((end.getValue() - at.getValue()) / (double) seconds);
    }
    double seconds = runSeconds - at.getKey();
    if (seconds < minSeconds) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of((totalOperations - at.getValue()) / seconds);
  }
}
