package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.HdrHistogram.Histogram;

/**
 * Collects latencies (nanoseconds) of one thread in an HdrHistogram (3 significant digits, any
 * range: memory stays bounded however long the run); merged and summarized at the end of a run, as
 * text ({@link #summary}) or as a JSON object ({@link #json}).
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
    Percentiles p = Percentiles.of(recorders);
    if (p.count() == 0) {
      return "latency_ms p50 - p99 - p999 - max -";
    }
    return String.format(
        "latency_ms p50 %.3f p99 %.3f p999 %.3f max %.3f", p.p50(), p.p99(), p.p999(), p.max());
  }

  /**
   * The same summary as a JSON object: {@code {"count": N, "p50_ms": X, "p99_ms": X, "p999_ms": X,
   * "max_ms": X}}, the percentiles null when nothing was recorded.
   */
  static ObjectNode json(Iterable<LatencyRecorder> recorders) {
    Percentiles p = Percentiles.of(recorders);
    ObjectNode o = BenchOutput.JSON.createObjectNode().put("count", p.count());
    if (p.count() == 0) {
      return o.putNull("p50_ms").putNull("p99_ms").putNull("p999_ms").putNull("max_ms");
    }
    return o.put("p50_ms", p.p50())
        .put("p99_ms", p.p99())
        .put("p999_ms", p.p999())
        .put("max_ms", p.max());
  }

  /** The merged histogram's count and percentiles, in milliseconds. */
  private record Percentiles(long count, double p50, double p99, double p999, double max) {
    static Percentiles of(Iterable<LatencyRecorder> recorders) {
      Histogram all = new Histogram(3);
      for (LatencyRecorder r : recorders) {
        all.add(r.histogram);
      }
      return new Percentiles(
          all.getTotalCount(),
          all.getValueAtPercentile(50) / 1e6,
          all.getValueAtPercentile(99) / 1e6,
          all.getValueAtPercentile(99.9) / 1e6,
          all.getMaxValue() / 1e6);
    }
  }
}
