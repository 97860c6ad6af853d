package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code bench tokens} and {@code bench append} against a real node: connections, cold and warm
 * lines.
 */
class LoadBenchTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  private static final Pattern COLD =
      Pattern.compile(": (\\d+) (tokens|appends) = (\\d+) \\2/s, latency_ms p50 ");
  private static final Pattern WARM =
      Pattern.compile(": (\\d+) (tokens|appends) in [0-9.]+ s = (\\d+) \\2/s");
  private static final Pattern TIMELINE = Pattern.compile("per second of load:((?: \\d+)+)$");

  @Test
  void tokensOnSeveralConnectionsReportColdWarmAndTimeline() {
    List<String> out =
        NODE.run(
            new TokensBench(),
            "--threads 4 --conns 2 --pipeline 1 --batch 1 --cold 1 --warmup 1 --duration 1");

    assertThat(out).hasSize(3);
    assertThat(out.get(0))
        .startsWith(
            "cold tokens loopback threads 4 conns 2 streams 1 batch 1 pipeline 1: first 1.0 s of"
                + " load");
    assertThat(out.get(1))
        .startsWith("tokens loopback threads 4 conns 2 streams 1 batch 1 pipeline 1: ")
        .contains("request latency_ms p50");
    assertThat(out.get(2)).startsWith("timeline tokens loopback threads 4 conns 2");
    assertCounts(out);
  }

  @Test
  void appendsOnSeveralConnectionsReportColdWarmAndTimeline() {
    List<String> out =
        NODE.run(
            new AppendBench(),
            "--threads 3 --conns 3 --streams 2 --size 64 --cold 1 --warmup 1 --duration 1 --prefix"
                + " lb");

    assertThat(out).hasSize(3);
    assertThat(out.get(0))
        .startsWith("cold append threads 3 conns 3 streams 2 size 64: first 1.0 s of load");
    assertThat(out.get(1)).startsWith("append threads 3 conns 3 streams 2 size 64: ");
    assertThat(out.get(2))
        .startsWith(
            "timeline append threads 3 conns 3 streams 2 size 64: appends per second of load:");
    assertCounts(out);
  }

  @Test
  void withoutColdOnlyTheWarmLineIsPrinted() {
    List<String> out = NODE.run(new AppendBench(), "--threads 1 --duration 0.5 --prefix lb1");

    assertThat(out).hasSize(1);
    assertThat(out.get(0)).startsWith("append threads 1 conns 1 streams 1 size 32: ");
  }

  /**
   * Cold and warm counts are positive, and the timeline's seconds hold at least both windows' work.
   */
  private static void assertCounts(List<String> out) {
    Matcher cold = COLD.matcher(out.get(0));
    Matcher warm = WARM.matcher(out.get(1));
    Matcher timeline = TIMELINE.matcher(out.get(2));
    assertThat(cold.find()).as(out.get(0)).isTrue();
    assertThat(warm.find()).as(out.get(1)).isTrue();
    assertThat(timeline.find()).as(out.get(2)).isTrue();
    long coldUnits = Long.parseLong(cold.group(1));
    long warmUnits = Long.parseLong(warm.group(1));
    long[] perSecond =
        Arrays.stream(timeline.group(1).trim().split(" ")).mapToLong(Long::parseLong).toArray();
    assertThat(coldUnits).isPositive();
    assertThat(warmUnits).isPositive();
    assertThat(perSecond.length).isGreaterThanOrEqualTo(2);
    // Second 0 is the cold window; seconds 1.. hold the warm window (less the work that completed
    // after the last whole second).
    assertThat(perSecond[0]).isEqualTo(coldUnits);
    assertThat(Arrays.stream(perSecond).sum()).isGreaterThanOrEqualTo(coldUnits);
  }
}
