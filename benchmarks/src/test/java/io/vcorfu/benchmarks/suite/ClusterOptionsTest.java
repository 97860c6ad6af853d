package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ClusterOptionsTest {
  private static ClusterOptions.Settings parse(String... args) {
    ClusterSuite suite = new ClusterSuite();
    new CommandLine(suite).parseArgs(args);
    return suite.options.settings();
  }

  @Test
  void aFullRunHasTheScriptsDefaults() {
    ClusterOptions.Settings s = parse();
    assertThat(s.parts()).containsExactly("failover", "append", "ycsb");
    assertThat(List.of(s.runs(), s.cold(), s.warmup(), s.duration()))
        .containsExactly(5, 10, 30, 10);
    assertThat(List.of(s.ycsbSeconds(), s.records(), s.ycsbCold(), s.ycsbWarmAfter()))
        .containsExactly(40, 10000, 10, 20);
    assertThat(List.of(s.pauseS(), s.pauseBefore(), s.basePort())).containsExactly(8, 12, 19400);
    assertThat(s.nodeFlags()).isEmpty();
    assertThat(s.clientWrites()).isFalse();
    assertThat(s.callers()).isEqualTo("loop");
    assertThat(s.has("pause")).isFalse();
  }

  @Test
  void aQuickRunIsSmallerButWhatIsGivenWins() {
    ClusterOptions.Settings s = parse("--quick", "--duration", "4", "--parts", "append,pause");
    assertThat(List.of(s.runs(), s.cold(), s.warmup(), s.duration())).containsExactly(1, 2, 3, 4);
    assertThat(List.of(s.ycsbSeconds(), s.records(), s.ycsbCold(), s.ycsbWarmAfter()))
        .containsExactly(12, 1000, 3, 5);
    assertThat(s.has("append")).isTrue();
    assertThat(s.has("pause")).isTrue();
    assertThat(s.has("failover")).isFalse();
  }

  @Test
  void nodeFlagsAreSplitOnSpaces() {
    assertThat(parse("--node-flags", " --probe-interval-ms 100  --layout-lease-ms 250").nodeFlags())
        .containsExactly("--probe-interval-ms", "100", "--layout-lease-ms", "250");
    assertThat(parse("--node-flags", "").nodeFlags()).isEmpty();
    assertThat(parse("--client-writes", "--callers", "threads").clientWrites()).isTrue();
  }

  @Test
  void countsOfNothingUnknownPartsAndPortsPastTheEndAreRefused() {
    assertThatThrownBy(() -> parse("--runs", "0"))
        .hasMessage("--runs must be a positive integer, got '0'");
    assertThatThrownBy(() -> parse("--quick", "--records", "-5"))
        .hasMessageContaining("--records must be a positive integer");
    assertThatThrownBy(() -> parse("--parts", "append,ycbs"))
        .hasMessage("--parts takes failover, pause, append, ycsb and tls, got 'append,ycbs'");
    assertThatThrownBy(() -> parse("--parts", "append,,ycsb"))
        .hasMessageContaining("--parts takes");
    assertThat(parse("--parts", "append,").parts()).containsExactly("append");
    assertThatThrownBy(() -> parse("--base-port", "65520"))
        .hasMessageContaining("room for 17 ports");
    assertThat(parse("--base-port", "65519").basePort()).isEqualTo(65519);
  }
}
