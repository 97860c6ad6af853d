package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class LatencyRecorderTest {
  @Test
  void textAndJsonSummarizeTheMergedRecordersAlike() {
    LatencyRecorder a = new LatencyRecorder();
    LatencyRecorder b = new LatencyRecorder();
    for (int i = 1; i <= 900; i++) {
      a.record(i * 1_000L); // 1 us .. 0.9 ms
    }
    for (int i = 1; i <= 100; i++) {
      b.record(10_000_000L + i * 10_000L); // 10.01 ms .. 11 ms
    }
    List<LatencyRecorder> both = List.of(a, b);

    ObjectNode json = LatencyRecorder.json(both);
    assertThat(json.get("count").asLong()).isEqualTo(1000);
    double p50 = json.get("p50_ms").asDouble();
    double p99 = json.get("p99_ms").asDouble();
    double p999 = json.get("p999_ms").asDouble();
    double max = json.get("max_ms").asDouble();
    // 3 significant digits: within 0.1 % of the recorded values.
    assertThat(p50).isBetween(0.499, 0.501);
    assertThat(p99).isBetween(10.88, 10.92);
    assertThat(p999).isBetween(10.98, 11.02);
    assertThat(max).isBetween(10.98, 11.02);
    assertThat(LatencyRecorder.summary(both))
        .isEqualTo(
            String.format(
                Locale.getDefault(Locale.Category.FORMAT),
                "latency_ms p50 %.3f p99 %.3f p999 %.3f max %.3f",
                p50,
                p99,
                p999,
                max));
  }

  @Test
  void nothingRecordedHasACountOfZeroAndNoPercentiles() {
    List<LatencyRecorder> none = List.of(new LatencyRecorder());

    assertThat(LatencyRecorder.json(none).toString())
        .isEqualTo(
            "{\"count\":0,\"p50_ms\":null,\"p99_ms\":null,\"p999_ms\":null,\"max_ms\":null}");
    assertThat(LatencyRecorder.summary(none)).isEqualTo("latency_ms p50 - p99 - p999 - max -");
  }
}
