package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The degraded suite's Figure 10 table against what run-degraded.sh's python wrote for the same
 * timeline and events, its defaults and the values it rejects.
 */
class DegradedTimelineTest {
  @Test
  void theTableIsTheScriptsToTheByte() {
    List<String> timeline =
        List.of(
            "stream-timeline threads=4 size=32",
            "second 1 appends 5000 reads 4990 degraded_log_reads 0 failures 0 at 1764460001.5",
            "second 2 appends 10 reads 0 degraded_log_reads 0 failures 3 at 1764460002.5",
            "second 3 appends 4000 reads 3900 degraded_log_reads 3900 failures 0 at 1764460003.5",
            "summary appends 9010");
    List<DegradedTimeline.Event> events =
        List.of(
            new DegradedTimeline.Event("1764460001.600000000", "kill"),
            new DegradedTimeline.Event("1764460002.400000000", "degraded"),
            new DegradedTimeline.Event("1764460002.500000000", "add-node"),
            new DegradedTimeline.Event("1764460009.000000000", "copied"));
    assertThat(DegradedTimeline.tsv(timeline, events))
        .isEqualTo(
            "second\tappends\treads\tevent\tdegraded_log_reads\n"
                + "1\t5000\t4990\t\t0\n"
                + "2\t10\t0\tkill,degraded,add-node\t0\n"
                + "3\t4000\t3900\t\t3900\n");
    assertThat(events.get(0).line()).isEqualTo("1764460001.600000000 kill");
    assertThat(DegradedTimeline.Event.now("kill").line()).matches("\\d+\\.\\d{9} kill");
  }

  @Test
  void theDefaultsAreTheScriptsAndNegativeValuesAreRejected() {
    DegradedSuite s = new DegradedSuite();
    new CommandLine(s).parseArgs();
    assertThat(new int[] {s.threads, s.size, s.beforeS, s.degradedS, s.afterS, s.basePort})
        .containsExactly(4, 32, 15, 20, 25, 19700);
    s.validate();
    DegradedSuite bad = new DegradedSuite();
    new CommandLine(bad).parseArgs("--after-s", "-2");
    assertThatThrownBy(bad::validate).hasMessageContaining("--after-s");
    assertThatThrownBy(() -> new CommandLine(new DegradedSuite()).parseArgs("--size", "1.5"))
        .isInstanceOf(CommandLine.ParameterException.class);
  }
}
