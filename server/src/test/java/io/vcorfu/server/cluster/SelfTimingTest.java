package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The manager's judgement of its own punctuality, on a scripted clock: probes every 100 ms, a
 * failure timeout of 1 s. A round starts a probe interval after the last one ended and waits at
 * most a probe interval for answers.
 */
class SelfTimingTest {
  private static final long MS = 1_000_000L;
  private static final Duration PROBE = Duration.ofMillis(100);
  private static final Duration FAILURE = Duration.ofSeconds(1);

  /**
   * Runs punctual rounds (start, probe wait of a probe interval, end) from {@code t} to {@code
   * until}.
   */
  private static long punctual(SelfTiming timing, long t, long until) {
    while (t < until) {
      assertThat(timing.startedOnTime(t)).as("round at %d ms", t / MS).isTrue();
      assertThat(timing.probedOnTime(t, t + 100 * MS)).isTrue();
      t += 100 * MS;
      timing.ended(t);
      t += 100 * MS;
    }
    return t;
  }

  @Test
  void aNodeJudgesOthersOnlyAfterItsRoundsRanOnTimeForAFailureTimeout() {
    SelfTiming timing = new SelfTiming(PROBE, FAILURE);
    long t0 = 1_000 * MS;
    assertThat(timing.steady(t0)).as("a node that has just started").isFalse();
    long t = punctual(timing, t0, t0 + 800 * MS);
    assertThat(timing.steady(t)).as("after %d ms of punctual rounds", (t - t0) / MS).isFalse();
    t = punctual(timing, t, t0 + 1_200 * MS);
    assertThat(timing.steady(t)).as("after %d ms of punctual rounds", (t - t0) / MS).isTrue();
  }

  @Test
  void aRoundThatStartedLateByMoreThanTheToleranceDiscardsItsVerdictsAndRestartsTheWarmUp() {
    SelfTiming timing = new SelfTiming(PROBE, FAILURE);
    long t = punctual(timing, 0, 2_000 * MS);
    assertThat(timing.steady(t)).isTrue();
    // Descheduled for 400 ms before the next round: well under a failure timeout, yet what the
    // probes heard before it no longer says anything about the others now.
    long late = t + 400 * MS;
    assertThat(timing.startedOnTime(late)).isFalse();
    assertThat(timing.steady(late)).as("right after running late").isFalse();
    assertThat(timing.probedOnTime(late, late + 100 * MS)).isTrue();
    timing.ended(late + 100 * MS);
    t = punctual(timing, late + 200 * MS, late + 700 * MS);
    assertThat(timing.steady(t))
        .as("re-measuring, %d ms after running late", (t - late) / MS)
        .isFalse();
    t = punctual(timing, t, late + 1_300 * MS);
    assertThat(timing.steady(t)).isTrue();
  }

  @Test
  void aProbeWaitThatOverranByMoreThanTheToleranceDiscardsTheRoundsVerdicts() {
    SelfTiming timing = new SelfTiming(PROBE, FAILURE);
    long t = punctual(timing, 0, 2_000 * MS);
    assertThat(timing.startedOnTime(t)).isTrue();
    assertThat(timing.probedOnTime(t, t + 450 * MS)).as("a wait of 450 ms for 100").isFalse();
    assertThat(timing.steady(t + 450 * MS)).isFalse();
  }

  @Test
  void aLittleLatenessKeepsTheVerdicts() {
    SelfTiming timing = new SelfTiming(PROBE, FAILURE);
    long t = punctual(timing, 0, 2_000 * MS);
    assertThat(timing.startedOnTime(t + 60 * MS)).isTrue();
    assertThat(timing.probedOnTime(t + 60 * MS, t + 220 * MS)).isTrue();
    timing.ended(t + 220 * MS);
    assertThat(timing.steady(t + 220 * MS)).isTrue();
  }

  @Test
  void aNodeWhoseRoundsKeepRunningLateSaysSoOnceEveryTwoWarmUps() {
    SelfTiming timing = new SelfTiming(PROBE, FAILURE);
    long t = punctual(timing, 0, 2_000 * MS);
    assertThat(timing.unsteadyTooLong(t)).as("steady").isFalse();
    int reported = 0;
    long from = t;
    // Every round starts 400 ms late: never steady again.
    for (int i = 0; i < 10; i++) {
      t += 400 * MS;
      assertThat(timing.startedOnTime(t)).isFalse();
      t += 100 * MS;
      timing.probedOnTime(t - 100 * MS, t);
      if (timing.unsteadyTooLong(t)) {
        reported++;
        assertThat(t - from).as("unsteady for").isGreaterThan(2_000 * MS);
        from = t;
      }
      timing.ended(t);
    }
    assertThat(reported).as("over %d ms of late rounds", 10 * 500).isEqualTo(2);
  }

  @Test
  void withTheDefaultShortFailureTimeoutTheToleranceIsAThirdOfIt() {
    // Probes every 50 ms, a failure timeout of 300 ms: a round that starts 150 ms late leaves a
    // healthy node's last answer 250 ms old before its next one can arrive; judging it then would
    // remove it for the manager's own lateness. The tolerance is 100 ms.
    SelfTiming timing = new SelfTiming(Duration.ofMillis(50), Duration.ofMillis(300));
    long t = 0;
    for (; t < 2_000 * MS; t += 100 * MS) {
      assertThat(timing.startedOnTime(t)).isTrue();
      assertThat(timing.probedOnTime(t, t + 50 * MS)).isTrue();
      timing.ended(t + 50 * MS);
    }
    assertThat(timing.steady(t)).isTrue();
    assertThat(timing.startedOnTime(t - 50 * MS + 50 * MS + 90 * MS)).as("90 ms late").isTrue();
    timing.ended(t + 90 * MS);
    assertThat(timing.startedOnTime(t + 90 * MS + 50 * MS + 150 * MS)).as("150 ms late").isFalse();
    assertThat(timing.steady(t + 290 * MS)).isFalse();
  }
}
