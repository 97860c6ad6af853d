package io.vcorfu.collections.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.IntUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The persistent map against java.util.HashMap under random operations, old versions included. */
class PersistentHashMapTest {
  private static final Logger LOG = LoggerFactory.getLogger(PersistentHashMapTest.class);

  /** A key whose hash code is chosen by the test, so hashes can collide in part or in full. */
  record Key(int id, int hash) {
    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.id == id;
    }
  }

  /** How test keys' hashes are made from their ids. */
  enum Hashing {
    /** Well spread 32-bit hashes. */
    SPREAD(id -> Integer.reverse(id * 0x9E3779B9)),
    /** Only 8 distinct hashes: deep tries ending in collision nodes. */
    FULL_COLLISIONS(id -> (id % 8) * 0x11111111),
    /** Hashes equal in their low 30 bits: paths down to the last level. */
    DEEP(id -> (id % 4) << 30 | 0x2AAAAAAA),
    /** Mixed: some spread, some colliding. */
    MIXED(id -> id % 3 == 0 ? 42 : id * 31);

    final IntUnaryOperator hash;

    Hashing(IntUnaryOperator hash) {
      this.hash = hash;
    }

    Key key(int id) {
      return new Key(id, hash.applyAsInt(id));
    }
  }

  static Stream<Arguments> runs() {
    long base = System.nanoTime();
    List<Arguments> out = new ArrayList<>();
    int i = 0;
    for (Hashing h : Hashing.values()) {
      // Colliding hashes put hundreds of keys in one collision node at 1,500 keys already (each
      // step then scans it, in the HashMap model too): 5,000 would take the same paths 10x longer.
      int most = h == Hashing.SPREAD ? 5_000 : 1_500;
      for (int keySpace : new int[] {16, 300, most}) {
        out.add(Arguments.of(h, keySpace, base + 7919L * i++));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} keys<{1} seed={2}")
  @MethodSource("runs")
  void behavesLikeAHashMapAndKeepsOldVersionsIntact(Hashing hashing, int keySpace, long seed) {
    LOG.info("PersistentHashMapTest seed={} hashing={} keySpace={}", seed, hashing, keySpace);
    Random random = new Random(seed);
    Map<Key, Integer> model = new HashMap<>();
    PersistentHashMap<Key, Integer> map = PersistentHashMap.empty();
    List<PersistentHashMap<Key, Integer>> versions = new ArrayList<>();
    List<Map<Key, Integer>> expected = new ArrayList<>();
    int ops = 20_000;
    for (int op = 0; op < ops; op++) {
      Key k = hashing.key(random.nextInt(keySpace));
      int dice = random.nextInt(10);
      if (dice < 6) {
        Integer v = random.nextInt(1000);
        Integer before = map.get(k);
        PersistentHashMap<Key, Integer> next = map.plus(k, v);
        assertThat(before)
            .as("seed %d op %d: previous value of %s", seed, op, k)
            .isEqualTo(model.put(k, v));
        map = next;
      } else if (dice < 9) {
        Integer before = map.get(k);
        map = map.minus(k);
        assertThat(before)
            .as("seed %d op %d: removed value of %s", seed, op, k)
            .isEqualTo(model.remove(k));
      } else {
        assertThat(map.containsKey(k))
            .as("seed %d op %d", seed, op)
            .isEqualTo(model.containsKey(k));
      }
      assertThat(map.size()).as("seed %d op %d: size", seed, op).isEqualTo(model.size());
      assertThat(map.get(k)).as("seed %d op %d: get", seed, op).isEqualTo(model.get(k));
      if (op % 997 == 0) {
        versions.add(map);
        expected.add(new HashMap<>(model));
        assertSameContents(map, model, seed);
      }
    }
    assertSameContents(map, model, seed);
    for (int i = 0; i < versions.size(); i++) {
      assertSameContents(versions.get(i), expected.get(i), seed);
    }
    for (Key k : new ArrayList<>(model.keySet())) {
      map = map.minus(k);
    }
    assertThat(map).as("seed %d: everything removed", seed).isEmpty();
    assertThat(map.entrySet().iterator()).isExhausted();
  }

  private static void assertSameContents(
      PersistentHashMap<Key, Integer> map, Map<Key, Integer> model, long seed) {
    assertThat(map).as("seed %d: equals the HashMap", seed).isEqualTo(model);
    assertThat(model).as("seed %d: the HashMap equals it", seed).isEqualTo(map);
    assertThat(map.hashCode()).as("seed %d: hashCode", seed).isEqualTo(model.hashCode());
    Set<Key> seen = new HashSet<>();
    int n = 0;
    for (Map.Entry<Key, Integer> e : map.entrySet()) {
      assertThat(seen.add(e.getKey())).as("seed %d: %s iterated once", seed, e.getKey()).isTrue();
      assertThat(e.getValue()).isEqualTo(model.get(e.getKey()));
      n++;
    }
    assertThat(n).as("seed %d: iterated entries", seed).isEqualTo(model.size());
  }

  @Test
  void updatesThatChangeNothingReturnTheSameMap() {
    PersistentHashMap<String, Integer> m = PersistentHashMap.<String, Integer>empty().plus("a", 1);
    Integer one = m.get("a");
    assertThat(m.plus("a", one)).isSameAs(m);
    assertThat(m.minus("b")).isSameAs(m);
    assertThat(m.plus("a", 2)).isNotSameAs(m).containsEntry("a", 2);
    assertThat(m).containsEntry("a", 1);
  }

  @Test
  void nullKeysAndValuesAreRefusedAndTheMapIsReadOnly() {
    PersistentHashMap<String, Integer> m = PersistentHashMap.empty();
    assertThatThrownBy(() -> m.plus(null, 1)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> m.plus("a", null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> m.get(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> m.put("a", 1)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void copyOfHoldsTheSameEntries() {
    Map<String, Integer> source = new HashMap<>();
    for (int i = 0; i < 1000; i++) {
      source.put("k" + i, i);
    }
    assertThat(PersistentHashMap.copyOf(source)).isEqualTo(source).hasSize(1000);
  }
}
