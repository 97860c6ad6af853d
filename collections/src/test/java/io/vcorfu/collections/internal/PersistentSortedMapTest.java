package io.vcorfu.collections.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class PersistentSortedMapTest {
  private static final Logger LOG = LoggerFactory.getLogger(PersistentSortedMapTest.class);

  private static List<Map.Entry<Integer, Integer>> drain(
      Iterator<? extends Map.Entry<Integer, Integer>> it) {
    List<Map.Entry<Integer, Integer>> out = new ArrayList<>();
    it.forEachRemaining(e -> out.add(Map.entry(e.getKey(), e.getValue())));
    return out;
  }

  private static KeyRange<Integer> randomRange(Random random, int keySpace) {
    Integer lo = random.nextInt(4) == 0 ? null : random.nextInt(keySpace + 2) - 1;
    Integer hi = random.nextInt(4) == 0 ? null : random.nextInt(keySpace + 2) - 1;
    if (lo != null && hi != null && lo > hi) {
      Integer t = lo;
      lo = hi;
      hi = t;
    }
    return new KeyRange<>(lo, random.nextBoolean(), hi, random.nextBoolean());
  }

  private static NavigableMap<Integer, Integer> slice(
      TreeMap<Integer, Integer> model, KeyRange<Integer> r) {
    if (r.isEmptyInterval()) {
      return new TreeMap<>();
    }
    NavigableMap<Integer, Integer> m = model;
    if (r.hasLo()) {
      m = m.tailMap(r.lo(), r.loInclusive());
    }
    if (r.hasHi()) {
      m = m.headMap(r.hi(), r.hiInclusive());
    }
    return m;
  }

  @ParameterizedTest
  @ValueSource(longs = {1L, 42L, 20261122L, 987654321L})
  void randomOperationsMatchTreeMapAndKeepTheAvlInvariants(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    int keySpace = 200;
    PersistentSortedMap<Integer, Integer> map = PersistentSortedMap.empty();
    TreeMap<Integer, Integer> model = new TreeMap<>();
    for (int i = 0; i < 4000; i++) {
      int k = random.nextInt(keySpace);
      int op = random.nextInt(10);
      if (op < 5) {
        int v = random.nextInt(1000);
        map = map.put(k, v);
        model.put(k, v);
      } else if (op < 8) {
        map = map.remove(k);
        model.remove(k);
      } else if (op == 8 && random.nextInt(20) == 0) {
        KeyRange<Integer> r = randomRange(random, keySpace);
        map = map.removeRange(r);
        slice(model, r).clear();
      }
      assertThat(map.get(k)).as("seed %d step %d get(%d)", seed, i, k).isEqualTo(model.get(k));
      assertThat(map.size()).as("seed %d step %d size", seed, i).isEqualTo(model.size());
      if (i % 50 == 0) {
        map.checkInvariants();
        assertThat(map.height())
            .as("seed %d: height within the AVL bound", seed)
            .isLessThanOrEqualTo((int) Math.ceil(1.45 * (Math.log(map.size() + 2) / Math.log(2))));
      }
      KeyRange<Integer> r = randomRange(random, keySpace);
      NavigableMap<Integer, Integer> expected = slice(model, r);
      assertThat(map.count(r))
          .as("seed %d step %d count %s", seed, i, r)
          .isEqualTo(expected.size());
      assertThat(map.first(r))
          .as("seed %d step %d first %s", seed, i, r)
          .isEqualTo(expected.firstEntry());
      assertThat(map.last(r))
          .as("seed %d step %d last %s", seed, i, r)
          .isEqualTo(expected.lastEntry());
      if (i % 25 == 0) {
        assertThat(drain(map.iterator(r, false)))
            .as("seed %d ascending %s", seed, r)
            .containsExactlyElementsOf(expected.entrySet());
        assertThat(drain(map.iterator(r, true)))
            .as("seed %d descending %s", seed, r)
            .containsExactlyElementsOf(expected.descendingMap().entrySet());
      }
    }
    map.checkInvariants();
  }

  @ParameterizedTest
  @ValueSource(longs = {5L, 77L})
  void everyOldVersionStaysIntactAfterLaterUpdates(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    List<PersistentSortedMap<Integer, Integer>> versions = new ArrayList<>();
    List<TreeMap<Integer, Integer>> models = new ArrayList<>();
    PersistentSortedMap<Integer, Integer> map = PersistentSortedMap.empty();
    TreeMap<Integer, Integer> model = new TreeMap<>();
    for (int i = 0; i < 600; i++) {
      int k = random.nextInt(100);
      if (random.nextInt(3) == 0) {
        map = map.remove(k);
        model.remove(k);
      } else {
        map = map.put(k, i);
        model.put(k, i);
      }
      versions.add(map);
      models.add(new TreeMap<>(model));
    }
    for (int i = 0; i < versions.size(); i++) {
      assertThat(drain(versions.get(i).iterator(KeyRange.all(), false)))
          .as("seed %d version %d", seed, i)
          .containsExactlyElementsOf(models.get(i).entrySet());
    }
  }

  @Test
  void entriesAreImmutableAndNullsAreRefused() {
    PersistentSortedMap<Integer, Integer> map =
        PersistentSortedMap.<Integer, Integer>empty().put(1, 2);
    assertThatThrownBy(() -> map.first(KeyRange.all()).setValue(3))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> map.put(null, 1)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.put(1, null)).isInstanceOf(NullPointerException.class);
    assertThat(map.remove(7)).as("removing an absent key returns the same version").isSameAs(map);
  }
}
