package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class YcsbProgressTest {
  private static YcsbProgress progress(long... operationsPerSecond) {
    YcsbProgress p = new YcsbProgress();
    p.accept("Loading workload...");
    p.accept("2026-11-24 11:40:00:000 0 sec: 0 operations; est completion in 0 second ");
    long total = 0;
    for (int s = 0; s < operationsPerSecond.length; s++) {
      total += operationsPerSecond[s];
      p.accept(
          "2026-11-24 11:40:0"
              + (s % 10)
              + ":001 "
              + (s + 1)
              + " sec: "
              + total
              + " operations; "
              + operationsPerSecond[s]
              + " current ops/sec; est completion in 1 minute [READ: Count=12, Max=3, Min=1,"
              + " Avg=2]");
    }
    return p;
  }

  @Test
  void coldIsTheRateOfTheFirstSecondsAndWarmTheRateAfterTheWarmUp() {
    // 3 slow seconds, then 7 fast ones; the run ends 10.5 s in with 2,000 more operations.
    YcsbProgress p = progress(100, 200, 300, 1000, 1000, 1000, 1000, 1000, 1000, 1000);
    long total = 600 + 7000 + 2000;

    assertThat(p.coldRate(3)).hasValue(200.0);
    // From second 4 (1,600 done) to second 10, the last status line below the total: 6,000
    // operations in 6 s (the 2,000 of the last half second are not in a whole second).
    assertThat(p.warmRate(4, total, 10.5, 5)).hasValue(1000.0);
  }

  @Test
  void warmLeavesOutTheSecondsAfterTheLastOperation() {
    // 10 seconds at 1,000 a second, 10 operations finishing in the 11th, then two seconds of the
    // clients' cleanup (a vcorfu runtime finishing its trims) inside YCSB's run time of 13.2 s.
    YcsbProgress p = progress(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 10, 0, 0);
    long total = 10_010;

    // Not 6,010 operations over 9.2 s (653 a second), as when the cleanup counted as load.
    assertThat(p.warmRate(4, total, 13.2, 5)).hasValue(1000.0);
  }

  @Test
  void withoutAStatusLineBeforeTheEndWarmRunsToTheRunTime() {
    YcsbProgress p = progress(1000, 1000, 1000, 1000, 1000);
    p.accept("2026-11-24 11:40:09:001 12 sec: 9000 operations; 800 current ops/sec;");

    // The only status line after second 5 (5,000 done) already holds the total: the window runs
    // from second 5 to YCSB's run time.
    assertThat(p.warmRate(5, 9000, 12.5, 5)).hasValue(4000 / 7.5);
  }

  @Test
  void aPhaseShorterThanAWindowHasNoFigureForIt() {
    YcsbProgress p = progress(100, 100);

    assertThat(p.coldRate(10)).isEmpty();
    assertThat(p.warmRate(1, 250, 2.5, 5)).isEmpty();
    assertThat(new YcsbProgress().coldRate(1)).isEmpty();
  }
}
