package io.vcorfu.server.cluster;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The latencies of a node's foreground write requests over the last second or two, as a histogram
 * whose percentiles are within about 10% of the true value (buckets grow by a factor of 2^(1/8)):
 * what a rebuild paces itself by (see {@link RebuildPacer}). Lock-free: {@link #record} is called
 * from request threads.
 *
 * <p>Two windows of {@link #WINDOW_NANOS} alternate; a read merges the current window with the
 * previous one, so it always covers at least one full window.
 */
public final class LatencyWindow {
  static final long WINDOW_NANOS = 1_000_000_000L;
  private static final int BUCKETS = 256;
  private static final double STEPS_PER_DOUBLING = 8;

  private final AtomicLongArray[] windows = {
    new AtomicLongArray(BUCKETS), new AtomicLongArray(BUCKETS)
  };
  private final AtomicLongArray windowIndex = new AtomicLongArray(new long[] {0, -1});
  private final long origin;

  public LatencyWindow() {
    this(System.nanoTime());
  }

  LatencyWindow(long originNanos) {
    this.origin = originNanos;
  }

  /** Records one request that took {@code nanos}, finishing at {@code nowNanos}. */
  public void record(long nanos, long nowNanos) {
    AtomicLongArray w = window(nowNanos);
    w.incrementAndGet(bucket(Math.max(1, nanos / 1000)));
  }

  /** What the window holds at {@code nowNanos}: its request count and 99th percentile. */
  public Snapshot snapshot(long nowNanos) {
    long index = (nowNanos - origin) / WINDOW_NANOS;
    long[] counts = new long[BUCKETS];
    long total = 0;
    synchronized (this) {
      for (int i = 0; i < 2; i++) {
        if (windowIndex.get(i) == index || windowIndex.get(i) == index - 1) {
          for (int b = 0; b < BUCKETS; b++) {
            long n = windows[i].get(b);
            counts[b] += n;
            total += n;
          }
        }
      }
    }
    if (total == 0) {
      return new Snapshot(0, 0);
    }
    long rank = (long) Math.ceil(total * 0.99);
    long seen = 0;
    for (int b = 0; b < BUCKETS; b++) {
      seen += counts[b];
      if (seen >= rank) {
        return new Snapshot(total, upperMicros(b));
      }
    }
    return new Snapshot(total, upperMicros(BUCKETS - 1));
  }

  /** A snapshot now. */
  public Snapshot snapshot() {
    return snapshot(System.nanoTime());
  }

  /** Requests recorded and their 99th percentile in microseconds (0 when none). */
  public record Snapshot(long requests, long p99Micros) {}

  private AtomicLongArray window(long nowNanos) {
    long index = (nowNanos - origin) / WINDOW_NANOS;
    int slot = (int) (index & 1);
    if (windowIndex.get(slot) != index) {
      synchronized (this) {
        if (windowIndex.get(slot) != index) {
          AtomicLongArray w = windows[slot];
          for (int b = 0; b < BUCKETS; b++) {
            w.set(b, 0);
          }
          windowIndex.set(slot, index);
        }
      }
    }
    return windows[slot];
  }

  static int bucket(long micros) {
    int b = (int) Math.floor(Math.log(micros) / Math.log(2) * STEPS_PER_DOUBLING);
    return Math.max(0, Math.min(BUCKETS - 1, b));
  }

  static long upperMicros(int bucket) {
    return (long) Math.ceil(Math.pow(2, (bucket + 1) / STEPS_PER_DOUBLING));
  }
}
