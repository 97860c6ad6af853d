package io.vcorfu.server;

import io.vcorfu.logunit.ForceObserver;

/**
 * Passes the forces (fsyncs) of a node's storage to the node's metrics, keeping those made before
 * the metrics start: a node recovers its segments and copies what it missed before it joins
 * (thousands of forces for a copy of a few GB) before its HTTP endpoint exists, and a count of
 * fsyncs that leaves them out says a copy forced a tenth of what it did.
 *
 * <p>Invariant: every force reaches the observer attached at the time or, when none is, the next
 * one attached, exactly once and in order; at most {@link #KEPT} forces are kept one by one, and
 * those beyond them as one count with their total time and records (replayed as that many forces of
 * the mean), so memory stays bounded while no one observes. Thread-safe: forces come from the
 * stores' writer threads, {@link #attach} from any thread; a force made while the kept ones are
 * handed to a new observer waits for them (once, when the node's metrics start: milliseconds).
 */
final class ForceRelay implements ForceObserver {
  /** The most forces kept one by one while no observer is attached. */
  static final int KEPT = 1 << 16;

  private final Object lock = new Object();
  private volatile ForceObserver observer;
  private long[] nanos = new long[64];
  private long[] records = new long[64];
  private int held;
  private long foldedForces;
  private long foldedNanos;
  private long foldedRecords;

  @Override
  public void forced(long forceNanos, long forceRecords) {
    ForceObserver o = observer;
    if (o == null) {
      synchronized (lock) {
        o = observer;
        if (o == null) {
          hold(forceNanos, forceRecords);
          return;
        }
      }
    }
    o.forced(forceNanos, forceRecords);
  }

  /**
   * Has {@code next} see every force from now on, after those made while no observer was attached;
   * null: none (forces are kept again for the next one).
   */
  void attach(ForceObserver next) {
    synchronized (lock) {
      if (next != null) {
        for (int i = 0; i < held; i++) {
          next.forced(nanos[i], records[i]);
        }
        for (long i = 0; i < foldedForces; i++) {
          next.forced(foldedNanos / foldedForces, foldedRecords / foldedForces);
        }
        held = 0;
        foldedForces = 0;
        foldedNanos = 0;
        foldedRecords = 0;
      }
      observer = next;
    }
  }

  private void hold(long forceNanos, long forceRecords) {
    if (held == KEPT) {
      foldedForces++;
      foldedNanos += forceNanos;
      foldedRecords += forceRecords;
      return;
    }
    if (held == nanos.length) {
      nanos = java.util.Arrays.copyOf(nanos, 2 * held);
      records = java.util.Arrays.copyOf(records, 2 * held);
    }
    nanos[held] = forceNanos;
    records[held++] = forceRecords;
  }
}
