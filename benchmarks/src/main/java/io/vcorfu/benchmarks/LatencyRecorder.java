package io.vcorfu.benchmarks;

import java.util.Arrays;

/** Collects latencies (nanoseconds) of one thread; merged and summarized at the end of a run. */
final class LatencyRecorder {
  private long[] samples = new long[1 << 16];
  private int size;

  void record(long nanos) {
    if (size == samples.length) {
      samples = Arrays.copyOf(samples, size * 2);
    }
    samples[size++] = nanos;
  }

  int count() {
    return size;
  }

  /** Percentile summary over several recorders, in milliseconds. */
  static String summary(Iterable<LatencyRecorder> recorders) {
    int total = 0;
    for (LatencyRecorder r : recorders) {
      total += r.size;
    }
    if (total == 0) {
      return "latency_ms p50 - p99 - p999 - max -";
    }
    long[] all = new long[total];
    int at = 0;
    for (LatencyRecorder r : recorders) {
      System.arraycopy(r.samples, 0, all, at, r.size);
      at += r.size;
    }
    Arrays.sort(all);
    return String.format(
        "latency_ms p50 %.3f p99 %.3f p999 %.3f max %.3f",
        ms(all, 0.50), ms(all, 0.99), ms(all, 0.999), all[total - 1] / 1e6);
  }

  private static double ms(long[] sorted, double q) {
    int i = (int) Math.min(sorted.length - 1, Math.floor(q * sorted.length));
    return sorted[i] / 1e6;
  }
}
