package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The foreground latency window: percentiles within its bucket precision, over one or two seconds.
 */
class LatencyWindowTest {
  private static final Logger LOG = LoggerFactory.getLogger(LatencyWindowTest.class);
  private static final long MS = 1_000_000L;

  @Test
  void theP99IsWithinTenPercentOfTheTrueOne() {
    long seed = System.nanoTime();
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    LatencyWindow w = new LatencyWindow(0);
    long[] micros = new long[10_000];
    for (int i = 0; i < micros.length; i++) {
      micros[i] = 50 + (long) (Math.abs(random.nextGaussian()) * 5_000);
      w.record(micros[i] * 1000, MS);
    }
    java.util.Arrays.sort(micros);
    long truth = micros[(int) Math.ceil(micros.length * 0.99) - 1];
    LatencyWindow.Snapshot s = w.snapshot(MS);
    assertThat(s.requests()).isEqualTo(micros.length);
    assertThat((double) s.p99Micros()).as("seed %s", seed).isBetween(truth * 0.99, truth * 1.1);
  }

  @Test
  void aReadCoversTheCurrentAndThePreviousSecondOnly() {
    LatencyWindow w = new LatencyWindow(0);
    assertThat(w.snapshot(0)).isEqualTo(new LatencyWindow.Snapshot(0, 0));
    for (int i = 0; i < 100; i++) {
      w.record(40 * MS, 500 * MS); // second 0: slow
    }
    for (int i = 0; i < 100; i++) {
      w.record(MS, 1_500 * MS); // second 1: fast
    }
    LatencyWindow.Snapshot both = w.snapshot(1_600 * MS);
    assertThat(both.requests()).isEqualTo(200);
    assertThat(both.p99Micros()).isGreaterThanOrEqualTo(40_000);
    LatencyWindow.Snapshot later = w.snapshot(2_100 * MS); // seconds 1 and 2
    assertThat(later.requests()).isEqualTo(100);
    assertThat(later.p99Micros()).isBetween(1_000L, 1_100L);
    for (int i = 0; i < 10; i++) {
      w.record(2 * MS, 2_200 * MS); // second 2 reuses second 0's slot, emptied first
    }
    assertThat(w.snapshot(2_300 * MS).requests()).isEqualTo(110);
    assertThat(w.snapshot(5_000 * MS).requests()).isZero();
  }
}
