package io.vcorfu.benchmarks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * {@link CostMeter} snapshots at the start and the end of a load's warm window, taken on a timer
 * from the moment the load starts, so that the cost line covers the same seconds as the warm
 * figure.
 */
final class WarmCost {
  private final CompletableFuture<CostMeter.Snapshot> start;
  private final CompletableFuture<CostMeter.Snapshot> end;

  private WarmCost(
      CompletableFuture<CostMeter.Snapshot> start, CompletableFuture<CostMeter.Snapshot> end) {
    this.start = start;
    this.end = end;
  }

  /** Snapshots {@code warmup} and {@code warmup + duration} seconds from now. */
  static WarmCost start(CostMeter meter, double warmup, double duration) {
    return new WarmCost(at(meter, warmup), at(meter, warmup + duration));
  }

  private static CompletableFuture<CostMeter.Snapshot> at(CostMeter meter, double seconds) {
    Executor later =
        CompletableFuture.delayedExecutor((long) (seconds * 1e9), TimeUnit.NANOSECONDS);
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
