package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ZipfGeneratorTest {
  private static final int DRAWS = 200_000;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 42, 20_261_122})
  void sameSeedGivesTheSameKeysAndEveryKeyIsInRange(long seed) {
    System.out.println("ZipfGeneratorTest seed " + seed);
    ZipfGenerator a = new ZipfGenerator(1000, 0.99, seed);
    ZipfGenerator b = new ZipfGenerator(1000, 0.99, seed);
    for (int i = 0; i < 10_000; i++) {
      long k = a.next();
      assertThat(k).isEqualTo(b.next()).isBetween(0L, 999L);
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {7, 99})
  void hotKeysAreDrawnAsOftenAsZipfSays(long seed) {
    System.out.println("ZipfGeneratorTest seed " + seed);
    ZipfGenerator z = new ZipfGenerator(1000, ZipfGenerator.DEFAULT_THETA, seed);
    long[] counts = new long[1000];
    for (int i = 0; i < DRAWS; i++) {
      counts[(int) z.next()]++;
    }
    assertThat(counts[0] / (double) DRAWS).isCloseTo(z.probability(0), within(0.005));
    assertThat(counts[1] / (double) DRAWS).isCloseTo(z.probability(1), within(0.005));
    double top100 = 0;
    long drawnTop100 = 0;
    for (int i = 0; i < 100; i++) {
      top100 += z.probability(i);
      drawnTop100 += counts[i];
    }
    assertThat(drawnTop100 / (double) DRAWS).isCloseTo(top100, within(0.02));
    assertThat(counts[0]).isGreaterThan(counts[1]).isGreaterThan(counts[10] * 5);
  }

  @Test
  void probabilitiesSumToOneAndFallWithRank() {
    ZipfGenerator z = new ZipfGenerator(500, 0.99, 1);
    double sum = 0;
    for (int i = 0; i < 500; i++) {
      sum += z.probability(i);
      if (i > 0) {
        assertThat(z.probability(i)).isLessThan(z.probability(i - 1));
      }
    }
    assertThat(sum).isCloseTo(1.0, within(1e-9));
    assertThat(z.probability(500)).isZero();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {3, 5})
  void uniformKeysAreSpreadEvenly(long seed) {
    System.out.println("ZipfGeneratorTest seed " + seed);
    KeyGenerator u = KeyGenerator.Distribution.UNIFORM.generator(10, seed);
    long[] counts = new long[10];
    for (int i = 0; i < DRAWS; i++) {
      counts[(int) u.next()]++;
    }
    for (long c : counts) {
      assertThat(c / (double) DRAWS).isCloseTo(0.1, within(0.01));
    }
  }

  @Test
  void distributionsParseByNameAndBadArgumentsAreRefused() {
    assertThat(KeyGenerator.Distribution.parse("Zipf")).isEqualTo(KeyGenerator.Distribution.ZIPF);
    assertThat(KeyGenerator.Distribution.parse("uniform").generator(5, 1).keys()).isEqualTo(5);
    assertThatThrownBy(() -> KeyGenerator.Distribution.parse("normal"))
        .hasMessageContaining("uniform or zipf");
    assertThatThrownBy(() -> new ZipfGenerator(1, 0.99, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ZipfGenerator(10, 1.0, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
