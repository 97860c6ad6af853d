package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** redis-benchmark's --csv output read by its header's column names, as peers/redis.sh reads it. */
class PeerBenchTest {
  @Test
  void theFiguresComeFromTheNamedColumnsAsPrinted() {
    String out =
        "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
            + "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
            + "\"INCR\",\"46798.95\",\"0.612\",\"0.112\",\"0.591\",\"0.903\",\"1.031\",\"3.207\"\n";
    assertThat(PeerBench.csv(out)).containsExactly("46798.95", "0.591", "1.031");
  }

  @Test
  void outputWithoutTheColumnsOrARowFails() {
    assertThatThrownBy(() -> PeerBench.csv("INCR: 46798.95 requests per second\n"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(
            () -> PeerBench.csv("\"test\",\"rps\",\"p50_latency_ms\",\"p99_latency_ms\"\n"))
        .isInstanceOf(IllegalStateException.class);
  }
}
