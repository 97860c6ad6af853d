package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NavigableMap} contract, checked against {@link TreeMap} as the reference: navigation,
 * iterators, views and their bounds, equals/hashCode, and the null handling vcorfu's sorted maps
 * document (null keys and values refused with {@link NullPointerException}). Subclasses supply
 * fresh, empty maps with {@code Long} keys and {@code String} values.
 */
public abstract class NavigableMapContract {
  private static final Logger LOG = LoggerFactory.getLogger(NavigableMapContract.class);

  /** A new, empty map; each call a different one. */
  protected abstract NavigableMap<Long, String> newMap();

  /** How many random steps the randomized tests take (smaller for slower maps). */
  protected int steps() {
    return 300;
  }

  private static Object outcome(
      Function<NavigableMap<Long, String>, Object> op, NavigableMap<Long, String> m) {
    try {
      Object r = op.apply(m);
      return r instanceof Map.Entry<?, ?> e ? Map.entry(e.getKey(), e.getValue()) : r;
    } catch (RuntimeException e) {
      return e.getClass();
    }
  }

  private static List<Map.Entry<Long, String>> entries(Map<Long, String> m) {
    List<Map.Entry<Long, String>> out = new ArrayList<>();
    for (Map.Entry<Long, String> e : m.entrySet()) {
      out.add(Map.entry(e.getKey(), e.getValue()));
    }
    return out;
  }

  private static void fill(
      Random random, NavigableMap<Long, String> map, TreeMap<Long, String> model, int n, int keys) {
    for (int i = 0; i < n; i++) {
      long k = random.nextInt(keys);
      map.put(k, "v" + i);
      model.put(k, "v" + i);
    }
  }

  /**
   * Compares every read of the java.util surface on {@code map} and {@code model} at key {@code k}.
   */
  private static void assertSameReads(
      String what, NavigableMap<Long, String> map, NavigableMap<Long, String> model, long k) {
    List<Function<NavigableMap<Long, String>, Object>> reads =
        List.of(
            m -> m.get(k),
            m -> m.containsKey(k),
            m -> m.size(),
            m -> m.isEmpty(),
            m -> m.floorEntry(k),
            m -> m.floorKey(k),
            m -> m.ceilingEntry(k),
            m -> m.ceilingKey(k),
            m -> m.lowerEntry(k),
            m -> m.lowerKey(k),
            m -> m.higherEntry(k),
            m -> m.higherKey(k),
            m -> m.firstEntry(),
            m -> m.lastEntry(),
            m -> m.firstKey(),
            m -> m.lastKey());
    for (int i = 0; i < reads.size(); i++) {
      assertThat(outcome(reads.get(i), map))
          .as("%s: read #%d at key %d", what, i, k)
          .isEqualTo(outcome(reads.get(i), model));
    }
  }

  @Test
  void anEmptyMapBehavesLikeAnEmptyTreeMap() {
    NavigableMap<Long, String> map = newMap();
    assertThat(map).isEmpty();
    assertThat(map.size()).isZero();
    assertThat(map.firstEntry()).isNull();
    assertThat(map.pollFirstEntry()).isNull();
    assertThat(map.pollLastEntry()).isNull();
    assertThatThrownBy(map::firstKey).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(map::lastKey).isInstanceOf(NoSuchElementException.class);
    assertThat(map.equals(new TreeMap<>())).isTrue();
    assertThat(map.hashCode()).isZero();
    assertThat(map.toString()).isEqualTo("{}");
    assertThat(map.entrySet().iterator().hasNext()).isFalse();
    assertThatThrownBy(() -> map.entrySet().iterator().next())
        .isInstanceOf(NoSuchElementException.class);
    assertThat(map.comparator()).isNull();
  }

  @ParameterizedTest
  @ValueSource(longs = {11L, 2024L})
  void randomUpdatesAndReadsMatchTreeMap(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    NavigableMap<Long, String> map = newMap();
    TreeMap<Long, String> model = new TreeMap<>();
    for (int i = 0; i < steps(); i++) {
      long k = random.nextInt(60);
      int op = random.nextInt(10);
      String what = "seed " + seed + " step " + i;
      if (op < 5) {
        assertThat(map.put(k, "v" + i)).as("%s put(%d)", what, k).isEqualTo(model.put(k, "v" + i));
      } else if (op < 8) {
        assertThat(map.remove(k)).as("%s remove(%d)", what, k).isEqualTo(model.remove(k));
      } else if (op == 8) {
        assertThat(outcome(NavigableMap::pollFirstEntry, map))
            .as("%s pollFirst", what)
            .isEqualTo(outcome(NavigableMap::pollFirstEntry, model));
      } else {
        assertThat(outcome(NavigableMap::pollLastEntry, map))
            .as("%s pollLast", what)
            .isEqualTo(outcome(NavigableMap::pollLastEntry, model));
      }
      assertSameReads(what, map, model, random.nextInt(64) - 2);
    }
    assertThat(entries(map))
        .as("seed %d: final entries in order", seed)
        .containsExactlyElementsOf(model.entrySet());
    assertThat(map).isEqualTo(model);
    assertThat(model).isEqualTo(map);
    assertThat(map.hashCode()).isEqualTo(model.hashCode());
    assertThat(map.toString()).isEqualTo(model.toString());
  }

  @ParameterizedTest
  @ValueSource(longs = {3L, 777L})
  void viewsMatchTreeMapViews(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    NavigableMap<Long, String> map = newMap();
    TreeMap<Long, String> model = new TreeMap<>();
    fill(random, map, model, 40, 50);
    for (int i = 0; i < steps() / 10; i++) {
      long a = random.nextInt(54) - 2;
      long b = a + random.nextInt(30);
      boolean ai = random.nextBoolean();
      boolean bi = random.nextBoolean();
      List<Function<NavigableMap<Long, String>, NavigableMap<Long, String>>> views =
          List.of(
              m -> m.subMap(a, ai, b, bi),
              m -> m.headMap(b, bi),
              m -> m.tailMap(a, ai),
              NavigableMap::descendingMap,
              m -> m.descendingMap().subMap(b, bi, a, ai),
              m -> m.subMap(a, ai, b, bi).descendingMap().headMap(a + 5, true),
              m -> (NavigableMap<Long, String>) m.subMap(a, b).tailMap(a + 3 > b ? a : a + 3));
      for (int v = 0; v < views.size(); v++) {
        String what = "seed " + seed + " step " + i + " view " + v + " [" + a + "," + b + "]";
        Function<NavigableMap<Long, String>, Object> make = views.get(v)::apply;
        Object expectedView = outcome(make, model);
        if (expectedView instanceof Class<?>) {
          assertThat(outcome(make, map))
              .as("%s: the view is refused like TreeMap's", what)
              .isEqualTo(expectedView);
          continue;
        }
        @SuppressWarnings("unchecked")
        NavigableMap<Long, String> expected = (NavigableMap<Long, String>) expectedView;
        NavigableMap<Long, String> view = views.get(v).apply(map);
        assertThat(entries(view)).as(what).containsExactlyElementsOf(expected.entrySet());
        assertThat(new ArrayList<>(view.navigableKeySet()))
            .as(what)
            .isEqualTo(new ArrayList<>(expected.navigableKeySet()));
        assertThat(new ArrayList<>(view.descendingKeySet()))
            .as(what)
            .isEqualTo(new ArrayList<>(expected.descendingKeySet()));
        assertThat(new ArrayList<>(view.values()))
            .as(what)
            .isEqualTo(new ArrayList<>(expected.values()));
        assertThat(view).as(what).isEqualTo(expected);
        assertThat(view.hashCode()).as(what).isEqualTo(expected.hashCode());
        assertSameReads(what, view, expected, random.nextInt(54) - 2);
        long outside = random.nextInt(60) - 5;
        assertThat(outcome(m -> m.put(outside, "x"), view))
            .as("%s put(%d)", what, outside)
            .isEqualTo(outcome(m -> m.put(outside, "x"), expected));
        assertThat(map).as(what + " after a put through the view").isEqualTo(model);
      }
    }
  }

  @Test
  void writesThroughViewsReachTheMapAndOutOfRangeKeysAreRejected() {
    NavigableMap<Long, String> map = newMap();
    for (long k = 0; k < 20; k++) {
      map.put(k, "v" + k);
    }
    NavigableMap<Long, String> sub = map.subMap(5L, true, 10L, false);
    assertThat(sub.put(7L, "seven")).isEqualTo("v7");
    assertThat(map.get(7L)).isEqualTo("seven");
    assertThatThrownBy(() -> sub.put(10L, "x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> sub.put(4L, "x")).isInstanceOf(IllegalArgumentException.class);
    assertThat(sub.get(12L)).as("reads outside the range find nothing").isNull();
    assertThat(sub.remove(12L)).as("removes outside the range do nothing").isNull();
    assertThat(map.get(12L)).isEqualTo("v12");
    assertThat(sub.pollFirstEntry()).isEqualTo(Map.entry(5L, "v5"));
    assertThat(sub.descendingMap().pollFirstEntry()).isEqualTo(Map.entry(9L, "v9"));
    assertThat(map.containsKey(5L)).isFalse();
    assertThat(map.containsKey(9L)).isFalse();
    assertThat(sub.navigableKeySet().remove(6L)).isTrue();
    assertThat(sub.navigableKeySet().remove(15L)).isFalse();
    assertThat(map.containsKey(6L)).isFalse();
    Iterator<Map.Entry<Long, String>> it = map.tailMap(15L, true).entrySet().iterator();
    Map.Entry<Long, String> e = it.next();
    assertThat(e.setValue("fifteen")).isEqualTo("v15");
    assertThat(map.get(15L)).isEqualTo("fifteen");
    it.next();
    it.remove();
    assertThat(map.containsKey(16L)).isFalse();
    Iterator<String> values = map.headMap(2L).values().iterator();
    values.next();
    values.remove();
    assertThat(map.containsKey(0L)).isFalse();
    assertThatThrownBy(() -> map.navigableKeySet().add(100L))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(map.entrySet().remove(Map.entry(1L, "wrong"))).isFalse();
    assertThat(map.entrySet().remove(Map.entry(1L, "v1"))).isTrue();
    map.subMap(2L, 8L).clear();
    assertThat(map.navigableKeySet())
        .containsExactly(8L, 10L, 11L, 12L, 13L, 14L, 15L, 17L, 18L, 19L);
    map.descendingMap().headMap(17L).clear();
    assertThat(map.navigableKeySet()).containsExactly(8L, 10L, 11L, 12L, 13L, 14L, 15L, 17L);
  }

  @Test
  void subViewBoundsAreCheckedLikeTreeMap() {
    NavigableMap<Long, String> map = newMap();
    TreeMap<Long, String> model = new TreeMap<>();
    for (long k = 0; k < 10; k++) {
      map.put(k, "v");
      model.put(k, "v");
    }
    List<Function<NavigableMap<Long, String>, Object>> calls =
        List.of(
            m -> m.subMap(5L, 2L),
            m -> m.subMap(2L, false, 2L, false).size(),
            m -> m.subMap(2L, 6L).subMap(1L, 4L),
            m -> m.subMap(2L, 6L).subMap(3L, 6L).size(),
            m -> m.subMap(2L, true, 6L, false).subMap(3L, true, 6L, true),
            m -> m.headMap(5L, false).tailMap(5L, false).size(),
            m -> m.headMap(5L, false).tailMap(5L, true),
            m -> m.tailMap(5L, false).headMap(5L, false).size(),
            m -> m.descendingMap().subMap(2L, 5L),
            m -> m.descendingMap().subMap(5L, 2L).size(),
            m -> m.headMap(3L).headMap(4L),
            m -> m.navigableKeySet().subSet(2L, 6L).headSet(7L),
            m -> m.navigableKeySet().subSet(2L, 6L).headSet(6L).size());
    for (int i = 0; i < calls.size(); i++) {
      assertThat(outcome(calls.get(i), map))
          .as("call #%d", i)
          .isEqualTo(outcome(calls.get(i), model));
    }
  }

  @Test
  void iteratorsFollowTheIteratorContractAndWalkOneVersion() {
    NavigableMap<Long, String> map = newMap();
    for (long k = 0; k < 5; k++) {
      map.put(k, "v" + k);
    }
    Iterator<Long> keys = map.navigableKeySet().iterator();
    assertThatThrownBy(keys::remove).isInstanceOf(IllegalStateException.class);
    assertThat(keys.next()).isZero();
    keys.remove();
    assertThatThrownBy(keys::remove).isInstanceOf(IllegalStateException.class);
    map.put(100L, "late");
    List<Long> rest = new ArrayList<>();
    keys.forEachRemaining(rest::add);
    assertThat(rest)
        .as("the iterator keeps walking the version it started on")
        .containsExactly(1L, 2L, 3L, 4L);
    assertThatThrownBy(keys::next).isInstanceOf(NoSuchElementException.class);
    assertThat(map.navigableKeySet()).containsExactly(1L, 2L, 3L, 4L, 100L);
    Iterator<Long> down = map.navigableKeySet().descendingIterator();
    assertThat(down.next()).isEqualTo(100L);
    assertThat(map.descendingKeySet().first()).isEqualTo(100L);
  }

  @Test
  void nullKeysAndValuesAreRefusedWithNullPointerException() {
    NavigableMap<Long, String> map = newMap();
    map.put(1L, "one");
    List<Function<NavigableMap<Long, String>, Object>> calls =
        List.of(
            m -> m.put(null, "x"),
            m -> m.put(2L, null),
            m -> m.get(null),
            m -> m.containsKey(null),
            m -> m.remove(null),
            m -> m.floorKey(null),
            m -> m.ceilingEntry(null),
            m -> m.lowerKey(null),
            m -> m.higherEntry(null),
            m -> m.containsValue(null),
            m -> m.subMap(null, 2L),
            m -> m.headMap(null),
            m -> m.tailMap(null, true),
            m -> m.subMap(0L, 5L).put(null, "x"));
    for (int i = 0; i < calls.size(); i++) {
      assertThat(outcome(calls.get(i), map))
          .as("call #%d", i)
          .isEqualTo(NullPointerException.class);
    }
    assertThat(map).as("refused calls change nothing").isEqualTo(Map.of(1L, "one"));
  }

  @Test
  void equalsAndHashCodeFollowTheMapContract() {
    NavigableMap<Long, String> map = newMap();
    TreeMap<Long, String> tree = new TreeMap<>();
    HashMap<Long, String> hash = new HashMap<>();
    for (long k = 0; k < 30; k += 3) {
      map.put(k, "v" + k);
      tree.put(k, "v" + k);
      hash.put(k, "v" + k);
    }
    assertThat(map.equals(tree)).isTrue();
    assertThat(tree.equals(map)).isTrue();
    assertThat(map.equals(hash)).isTrue();
    assertThat(hash.equals(map)).isTrue();
    assertThat(map.hashCode()).isEqualTo(tree.hashCode()).isEqualTo(hash.hashCode());
    assertThat(map.entrySet()).isEqualTo(tree.entrySet());
    assertThat(map.entrySet().hashCode()).isEqualTo(tree.entrySet().hashCode());
    assertThat(map.navigableKeySet()).isEqualTo(new TreeSet<>(tree.keySet()));
    assertThat(map.navigableKeySet().hashCode()).isEqualTo(tree.keySet().hashCode());
    assertThat(map.equals(Map.of(1L, "x"))).isFalse();
    assertThat(map.equals(List.of())).isFalse();
    map.put(3L, "changed");
    assertThat(map.equals(tree)).isFalse();
    assertThat(tree.equals(map)).isFalse();
    assertThat(map.containsValue("changed")).isTrue();
    assertThat(map.values().contains("v3")).isFalse();
  }

  @Test
  void putAllAndClearCoverEveryKey() {
    NavigableMap<Long, String> map = newMap();
    TreeMap<Long, String> source = new TreeMap<>();
    for (long k = 0; k < 25; k++) {
      source.put(k * 7 % 25, "v" + k);
    }
    map.putAll(source);
    assertThat(map).isEqualTo(source);
    assertThat(map.descendingMap().comparator().compare(1L, 2L))
        .as("descending order")
        .isPositive();
    map.clear();
    assertThat(map).isEmpty();
    assertThat(map.size()).isZero();
  }
}
