package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BusySuiteTest {
  private static BusySuite parse(String... args) {
    BusySuite suite = new BusySuite();
    new CommandLine(suite).parseArgs(args);
    suite.check();
    return suite;
  }

  @Test
  void verdictsAreSplitAtTheLoadsStartByTheirLogTime() {
    List<String> log =
        List.of(
            "2026-11-29T23:00:19.678Z [main] INFO ready",
            "2026-11-29T23:00:20.100Z [cluster-manager] WARN h:2 unresponsive for over 300 ms",
            "2026-11-29T23:00:25.000Z [cluster-manager] WARN h:3 unresponsive for over 300 ms",
            "2026-11-29T23:00:25.001Z [cluster-manager] WARN h:1 unresponsive for over 300 ms",
            "2026-11-29T23:00:26.000Z [cluster-manager] INFO h:1 is back");
    assertThat(BusySuite.verdicts(log, "2026-11-29T23:00:25.000")).containsExactly(1, 2);
    assertThat(BusySuite.verdicts(log, "2026-11-29T23:00:30.000")).containsExactly(3, 0);
    assertThat(BusySuite.verdicts(List.of(), "2026-11-29T23:00:30.000")).containsExactly(0, 0);
  }

  @Test
  void theDefaultsAreTheScriptsAndCountsOfNothingAreRefused() {
    BusySuite s = parse();
    assertThat(List.of(s.seconds, s.threads, s.runs, s.basePort)).containsExactly(60, 8, 1, 19500);
    assertThat(s.hogCount()).isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(s.extraNodeFlags()).isEmpty();
    assertThat(parse("--hogs", "3", "--node-flags", "--failure-timeout-ms 400").extraNodeFlags())
        .containsExactly("--failure-timeout-ms", "400");
    assertThatThrownBy(() -> parse("--hogs", "0")).hasMessageContaining("--hogs must be");
    assertThatThrownBy(() -> parse("--base-port", "65533")).hasMessageContaining("4 ports");
  }
}
