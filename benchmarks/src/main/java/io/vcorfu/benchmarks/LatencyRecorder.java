package io.vcorfu.benchmarks;

import org.HdrHistogram.Histogram;

/**
 * Collects latencies (nanoseconds) of one thread in an HdrHistogram (3 significant digits, any
 * range: memory stays bounded however long the run); merged and summarized at the end of a run.
 */
final class LatencyRecorder {
  private final Histogram histogram = new Histogram(3);

  void record(long nanos) {
    histogram.recordValue(Math.max(0, nanos));
  }

  int count() {
    return (int) Math.min(Integer.MAX_VALUE, histogram.getTotalCount());
  }

  /** Percentile summary over several recorders, in milliseconds. */
  static String summary(Iterable<LatencyRecorder> recorders) {
    Histogram all = new Histogram(3);
    for (LatencyRecorder r : recorders) {
      all.add(r.histogram);
    }
    if (all.getTotalCount() == 0) {
      return "latency_ms p50 - p99 - p999 - max -";
    }
    return String.format(
        "latency_ms p50 %.3f p99 %.3f p999 %.3f max %.3f",
        all.getValueAtPercentile(50) / 1e6,
        all.getValueAtPercentile(99) / 1e6,
        all.getValueAtPercentile(99.9) / 1e6,
        all.getMaxValue() / 1e6);
  }
}
