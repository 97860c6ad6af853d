package io.vcorfu.benchmarks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * {@link CostMeter} snapshots at the start and the end of a load's warm window, each taken at its
 * edge's own time counted from the moment the load started (not from when this was set up: the
 * meter's first use can take a few hundred milliseconds, and a window shifted by that much ends
 * after the load stopped), so that the cost line covers the same seconds as the warm figure.
 *
 * <p>A meter's first snapshot is not free: the client starts its HTTP client and each node renders
 * its {@code /metrics} page for the first time, about 0.3 s of a loaded node's processor each,
 * which on a saturated machine halved the appends of the first two seconds of the warm window it
 * was meant to measure. So one snapshot is taken and thrown away first, halfway between the end of
 * the cold window and the start of the warm one, where neither figure counts it; when the windows
 * leave no such gap, right away, before the load starts.
 */
final class WarmCost {
  private final CompletableFuture<CostMeter.Snapshot> start;
  private final CompletableFuture<CostMeter.Snapshot> end;

  private WarmCost(
      CompletableFuture<CostMeter.Snapshot> start, CompletableFuture<CostMeter.Snapshot> end) {
    this.start = start;
    this.end = end;
  }

  /** The shortest gap between the cold and the warm window that takes the priming snapshot. */
  static final double PRIMING_GAP_SECONDS = 2;

  /**
   * Snapshots {@code warmup} and {@code warmup + duration} seconds after {@code loadStart} (a
   * {@link System#nanoTime()} time), after a priming one at {@link #primingSeconds} (taken here, at
   * once, when that is 0).
   */
  static WarmCost start(
      CostMeter meter, long loadStart, double cold, double warmup, double duration) {
    double priming = primingSeconds(cold, warmup);
    if (priming == 0) {
      try {
        meter.take();
      } catch (Exception e) {
        // the measured snapshots report it
      }
    } else {
      at(meter, loadStart, priming).exceptionally(e -> null);
    }
    return new WarmCost(at(meter, loadStart, warmup), at(meter, loadStart, warmup + duration));
  }

  /**
   * Seconds after the load starts for the priming snapshot: halfway through the gap between the
   * cold window's end and the warm window's start, or 0 (before the load) without such a gap.
   */
  static double primingSeconds(double cold, double warmup) {
    double gap = warmup - cold;
    return gap >= PRIMING_GAP_SECONDS ? cold + gap / 2 : 0;
  }

  private static CompletableFuture<CostMeter.Snapshot> at(
      CostMeter meter, long loadStart, double seconds) {
    long delay = loadStart + (long) (seconds * 1e9) - System.nanoTime();
    Executor later = CompletableFuture.delayedExecutor(Math.max(0, delay), TimeUnit.NANOSECONDS);
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return meter.take();
          } catch (Exception e) {
            throw new IllegalStateException("cannot read the cost counters: " + e.getMessage(), e);
          }
        },
        later);
  }

  /** The cost line of {@code ops} operations of the warm window (waits for the end snapshot). */
  String line(String label, long ops) {
    try {
      return CostMeter.line(
          label, start.get(30, TimeUnit.SECONDS), end.get(30, TimeUnit.SECONDS), ops);
    } catch (Exception e) {
      return "cost " + label + ": not measured (" + e.getMessage() + ")";
    }
  }
}
