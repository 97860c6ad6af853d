package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EtcdBenchTest {
  private static final String REPORT =
      """
       32000 / 32000 Booooooooooooooooooooooooooooooooooooooooo! 100.00% 9s

      Summary:
        Total:\t9.1234 secs.
        Slowest:\t0.0811 secs.
        Fastest:\t0.0009 secs.
        Average:\t0.0022 secs.
        Stddev:\t0.0017 secs.
        Requests/sec:\t3507.4567

      Response time histogram:
        0.0009 [1]\t|

      Latency distribution:
        10% in 0.0012 secs.
        50% in 0.0019 secs.
        99% in 0.0094 secs.
        99.9% in 0.0311 secs.
      """;

  @Test
  void thePutLineCarriesRateLatenciesInMillisecondsAndDuration() {
    assertThat(EtcdBench.putLine(REPORT, 8, 8, 32000))
        .isEqualTo(
            "etcd put ops/s: 3507.46 p50_ms: 1.900 p99_ms: 9.400 clients: 8 conns: 8 total: 32000"
                + " seconds: 9.1");
  }

  @Test
  void aReportWithoutItsFiguresFailsTheMeasurement() {
    assertThatThrownBy(() -> EtcdBench.putLine("Error: context deadline exceeded", 8, 8, 10))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("unexpected etcd-bench output");
  }

  @Test
  void putArgumentsSpreadConnectionsOverEveryEndpoint() {
    assertThat(EtcdBench.putArgs("h:1,h:3", 1024, 50, 50, 400))
        .containsExactly(
            "--endpoints",
            "h:1,h:3",
            "--clients",
            "50",
            "--conns",
            "50",
            "--precise",
            "put",
            "--total",
            "400",
            "--val-size",
            "1024",
            "--key-space-size",
            "400");
  }
}
