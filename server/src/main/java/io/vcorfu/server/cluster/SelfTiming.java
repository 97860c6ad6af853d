package io.vcorfu.server.cluster;

import java.time.Duration;

/**
 * How punctually the manager's own probe rounds ran, and so whether what its probes heard says
 * anything about the other nodes. A manager that did not run for a while (a pause, a long GC, a
 * process starved of processor time) last heard the others long ago through no fault of theirs: it
 * must not judge others by its own slowness. Times are {@code System.nanoTime()} values passed in,
 * so the decisions are table-tested on a scripted clock.
 *
 * <p>A round starts a probe interval after the last one ended and waits at most a probe interval
 * for answers. A round that started, or whose wait ended, later than that by more than the
 * tolerance (250 ms, or a third of the failure timeout when that is less, but at least a probe
 * interval) ran late: its verdicts are discarded (every node gets a full failure timeout again) and
 * the node re-measures: it judges others again only once its rounds have run on time for a failure
 * timeout. A node that has just started measures the same way before it first judges anyone.
 *
 * <p>Confined to the manager's thread.
 */
final class SelfTiming {
  private final long probeInterval;
  private final long tolerance;
  private final long warmUp;

  /** When the last round ended (0: none yet). */
  private long lastEnd;

  /** Since when the rounds have run on time (valid once {@link #measuring}). */
  private long onTimeSince;

  private boolean measuring;

  /** When this node last judged others, or started measuring (valid once {@link #measuring}). */
  private long lastSteady;

  SelfTiming(Duration probeInterval, Duration failureTimeout) {
    this.probeInterval = probeInterval.toNanos();
    this.tolerance =
        Math.max(
            this.probeInterval,
            Math.min(Duration.ofMillis(250).toNanos(), failureTimeout.toNanos() / 3));
    this.warmUp = Math.min(failureTimeout.toNanos(), 10 * this.probeInterval);
  }

  /**
   * A round starts at {@code start}: false when it started late, so that what the probes heard
   * before says nothing about the others now (they get a full failure timeout again).
   */
  boolean startedOnTime(long start) {
    boolean onTime = lastEnd == 0 || start - lastEnd <= probeInterval + tolerance;
    if (!onTime || !measuring) {
      restart(start);
    }
    return onTime;
  }

  /**
   * The round's probes were sent at {@code sent} and their wait ended at {@code waited}: false when
   * the wait overran, so that the round's verdicts are to be discarded.
   */
  boolean probedOnTime(long sent, long waited) {
    boolean onTime = waited - sent <= probeInterval + tolerance;
    if (!onTime) {
      restart(waited);
    }
    return onTime;
  }

  private void restart(long at) {
    if (!measuring) {
      lastSteady = at;
    } else if (steady(at)) {
      lastSteady = at;
    }
    onTimeSince = at;
    measuring = true;
  }

  /** The round ended at {@code end}. */
  void ended(long end) {
    lastEnd = end;
  }

  /**
   * True when this node's rounds have run on time for a failure timeout (at most ten probe
   * intervals) as of {@code now}: only then does it judge other nodes down.
   */
  boolean steady(long now) {
    return measuring && now - onTimeSince >= warmUp;
  }

  /**
   * True when, as of {@code now}, this node has not been steady for twice the warm-up (its rounds
   * keep running late): a manager that cannot judge the others leaves the management to a node that
   * can. Each such stretch is reported once: the count starts again from {@code now}.
   */
  boolean unsteadyTooLong(long now) {
    if (!measuring || steady(now)) {
      lastSteady = now;
      return false;
    }
    if (now - lastSteady > 2 * warmUp) {
      lastSteady = now;
      return true;
    }
    return false;
  }
}
