package io.vcorfu.server.cluster;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * The back-off of a layout a node failed to adopt, and which of its failures deserve a warning. The
 * delay before the next attempt doubles from {@link #FIRST} up to {@link #LONGEST} while attempts
 * keep failing; each kind of failure (the chain of exception types that caused it) is warned about
 * once, repeats are not (so a ZooKeeper outage of minutes logs one warning, not one per attempt). A
 * success starts both anew.
 *
 * <p>Not thread-safe: the membership thread alone uses it.
 */
final class AdoptionRetry {
  /** The delay after the first failure. */
  static final Duration FIRST = Duration.ofMillis(100);

  /** The longest delay between two attempts. */
  static final Duration LONGEST = Duration.ofSeconds(2);

  private final Set<String> warned = new HashSet<>();
  private long delayMillis;
  private int failures;

  /** Records a failed attempt; returns how long to wait before the next one. */
  Duration failed() {
    failures++;
    delayMillis =
        delayMillis == 0 ? FIRST.toMillis() : Math.min(LONGEST.toMillis(), delayMillis * 2);
    return Duration.ofMillis(delayMillis);
  }

  /**
   * True when no failure of {@code error}'s kind was warned about since the last success (and
   * records that one now is).
   */
  boolean warns(Throwable error) {
    return warned.add(kind(error));
  }

  /** Failed attempts since the last success. */
  int failures() {
    return failures;
  }

  /** An attempt succeeded: the next failure is the first again. */
  void succeeded() {
    failures = 0;
    delayMillis = 0;
    warned.clear();
  }

  /** The kind of {@code error}: the types of its chain of causes, outermost first. */
  static String kind(Throwable error) {
    StringBuilder b = new StringBuilder();
    Set<Throwable> seen = new HashSet<>();
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (b.length() > 0) {
        b.append(" <- ");
      }
      b.append(t.getClass().getName());
    }
    return b.toString();
  }
}
