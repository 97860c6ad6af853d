package io.vcorfu.logunit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.StreamId;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The index's address-to-slot map against a plain map: every address inserted is found at its slot
 * and every other address is not, through growth and trims, whatever the pattern of addresses (one
 * after another as a stream's are, strides that are multiples of the table's blocks and of large
 * powers of two, a log chain's share of the global addresses, and random ones).
 */
class NamespaceIndexTest {
  private static final Logger LOG = LoggerFactory.getLogger(NamespaceIndexTest.class);

  static Stream<Arguments> patterns() {
    long seed = Long.getLong("vcorfu.seed", System.nanoTime());
    return Stream.of(1L, 3L, 16L, 17L, 64L, 1L << 20, 0L)
        .map(stride -> Arguments.of(stride, seed + stride));
  }

  /** The addresses of a pattern: multiples of {@code stride}, or random ones for stride 0. */
  private static long address(long stride, int i, Random random) {
    return stride == 0 ? random.nextLong() & Long.MAX_VALUE : 1_000 + i * stride;
  }

  @ParameterizedTest(name = "stride {0}, seed {1}")
  @MethodSource("patterns")
  void everyInsertedAddressIsFoundAtItsSlotAndNoOtherIs(long stride, long seed) {
    LOG.info("NamespaceIndexTest stride {} seed {}", stride, seed);
    Random random = new Random(seed);
    NamespaceIndex index = new NamespaceIndex(StreamId.of("n"), false);
    Map<Long, Integer> model = new HashMap<>();
    long trimmedBelow = Long.MIN_VALUE;
    for (int i = 0; i < 20_000; i++) {
      long addr = address(stride, i, random);
      if (model.containsKey(addr) || addr < trimmedBelow) {
        continue;
      }
      assertThat(index.find(addr)).as("address %d before its insert", addr).isEqualTo(-1);
      model.put(addr, index.insert(addr));
      if (stride != 0 && random.nextInt(4_000) == 0) {
        // A trim of the oldest half: slots are renumbered, the survivors must still be found.
        long below = address(stride, i / 2, random);
        Map<Long, Integer> kept = new HashMap<>();
        index.removeBelow(below, s -> {});
        for (long a : model.keySet()) {
          if (a >= below) {
            kept.put(a, index.find(a));
          } else {
            assertThat(index.find(a)).as("trimmed address %d", a).isEqualTo(-1);
          }
        }
        model = kept;
        trimmedBelow = below;
      }
    }
    assertThat(index.size()).isEqualTo(model.size());
    for (Map.Entry<Long, Integer> e : model.entrySet()) {
      assertThat(e.getValue()).as("address %d has a slot", e.getKey()).isNotNegative();
      assertThat(index.find(e.getKey())).as("address %d", e.getKey()).isEqualTo(e.getValue());
    }
    for (int i = 0; i < 20_000; i++) {
      long absent = stride == 0 ? random.nextLong() & Long.MAX_VALUE : 1_000 + 20_000L * stride + i;
      if (!model.containsKey(absent)) {
        assertThat(index.find(absent)).as("absent address %d", absent).isEqualTo(-1);
      }
    }
  }
}
