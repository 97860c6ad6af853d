package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class YcsbReportTest {
  @Test
  void readsThroughputOperationsAndErrorsFromTheTextReport() {
    YcsbReport r = new YcsbReport();
    List.of(
            "YCSB Client 0.17.0",
            "[OVERALL], RunTime(ms), 2000",
            "[OVERALL], Throughput(ops/sec), 150.0",
            "[CLEANUP], Operations, 8",
            "[READ], Operations, 140",
            "[READ], 99thPercentileLatency(us), 812",
            "[READ], Return=OK, 140",
            "[READ-MODIFY-WRITE], Operations, 150",
            "[UPDATE], Operations, 148",
            "[UPDATE], Return=OK, 148",
            "[UPDATE-FAILED], Operations, 2",
            "[UPDATE], Return=ERROR, 2")
        .forEach(r::accept);
    assertThat(r.throughput()).hasValue(150.0);
    assertThat(r.completedOperations()).isEqualTo(300);
    assertThat(r.totalErrors()).isEqualTo(2);
    assertThat(r.operations())
        .containsEntry("READ", 140L)
        .containsEntry("UPDATE-FAILED", 2L)
        .doesNotContainKey("CLEANUP");
  }

  @Test
  void keepsTheLatencyFiguresOfEachOperationType() {
    YcsbReport r = new YcsbReport();
    List.of(
            "[READ], Operations, 140",
            "[READ], AverageLatency(us), 402.5",
            "[READ], 99thPercentileLatency(us), 812",
            "[UPDATE], MaxLatency(us), 9000",
            "[CLEANUP], MaxLatency(us), 7")
        .forEach(r::accept);
    assertThat(r.latenciesUs())
        .containsOnlyKeys("READ", "UPDATE")
        .containsEntry("READ", Map.of("AverageLatency", 402.5, "99thPercentileLatency", 812.0))
        .containsEntry("UPDATE", Map.of("MaxLatency", 9000.0));
  }

  @Test
  void aReportWithoutOverallLinesHasNoCompletedOperations() {
    YcsbReport r = new YcsbReport();
    r.accept("Error in initializing datastore bindings.");
    assertThat(r.throughput()).isEmpty();
    assertThat(r.completedOperations()).isZero();
  }
}
