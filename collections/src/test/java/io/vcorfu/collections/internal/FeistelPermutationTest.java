package io.vcorfu.collections.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class FeistelPermutationTest {
  private static final Logger LOG = LoggerFactory.getLogger(FeistelPermutationTest.class);

  @ParameterizedTest
  @ValueSource(ints = {1, 4, 8, 10})
  void isABijectionOnItsWholeDomain(int halfBits) {
    FeistelPermutation p =
        new FeistelPermutation(halfBits, new int[] {0x243F6A88, 0x85A308D3, 0x13198A2E});
    int domain = 1 << (2 * halfBits);
    BitSet hit = new BitSet(domain);
    int outside = 0;
    int notInverted = 0;
    for (int x = 0; x < domain; x++) {
      long y = p.permute(x);
      if (y < 0 || y >= domain) {
        outside++;
        continue;
      }
      hit.set((int) y);
      if (p.invert(y) != x) {
        notInverted++;
      }
    }
    assertThat(outside).as("images outside the domain").isZero();
    assertThat(hit.cardinality())
        .as("distinct images (a bijection hits every value once)")
        .isEqualTo(domain);
    assertThat(notInverted).as("values invert() does not bring back").isZero();
  }

  @ParameterizedTest
  @ValueSource(longs = {1L, 20261122L})
  void theBucketPermutationInvertsEverySixtyFourBitValue(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    int notInverted = 0;
    for (int i = 0; i < 100_000; i++) {
      long x = random.nextLong();
      if (FeistelPermutation.BUCKETS.invert(FeistelPermutation.BUCKETS.permute(x)) != x) {
        notInverted++;
      }
    }
    assertThat(notInverted).isZero();
    assertThat(FeistelPermutation.BUCKETS.permute(0)).isNotZero();
  }

  @Test
  void needsThreeRoundsAndAHalfOfOneToThirtyTwoBits() {
    assertThatThrownBy(() -> new FeistelPermutation(32, new int[] {1, 2}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 3 rounds");
    assertThatThrownBy(() -> new FeistelPermutation(33, new int[] {1, 2, 3}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void stableHashIsSixtyFourBitFnv1a() {
    // Published FNV-1a 64-bit test vectors.
    assertThat(FeistelPermutation.stableHash(new byte[0])).isEqualTo(0xcbf29ce484222325L);
    assertThat(FeistelPermutation.stableHash("a".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(0xaf63dc4c8601ec8cL);
    assertThat(FeistelPermutation.stableHash("foobar".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(0x85944171f73967e8L);
  }
}
