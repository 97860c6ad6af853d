package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code java.util.Map} contract for a replicated map, checked against {@link HashMap}. A
 * concrete test supplies only {@link #openMap}; the runtimes come from {@link TestRuntimes}, so the
 * same suite runs on the in-memory log and against real nodes.
 *
 * <p>What the suite holds every replicated map to, beyond the {@code Map} interface: null keys and
 * values are refused with {@link NullPointerException} (views answer {@code contains(null)} with
 * false); views are live and write through; an iterator walks the version of the map that was
 * current when it was created, never throws {@link java.util.ConcurrentModificationException}, and
 * its {@code remove} removes the last key it returned from the map.
 */
public abstract class MapContractTest {
  private static final Logger LOG = LoggerFactory.getLogger(MapContractTest.class);

  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();
  protected VCorfuRuntime rt;
  protected String name;
  protected Map<String, Integer> map;

  /** Opens the replicated map called {@code name} through {@code rt} (new names start empty). */
  protected abstract Map<String, Integer> openMap(VCorfuRuntime rt, String name);

  @BeforeEach
  void openFirstMap() {
    rt = newRuntime();
    name = "contract-" + UUID.randomUUID();
    map = openMap(rt, name);
  }

  protected VCorfuRuntime newRuntime() {
    return runtimes.runtime();
  }

  static Stream<Long> seeds() {
    long base = System.nanoTime();
    return LongStream.range(0, 3).mapToObj(i -> base + 104_729L * i);
  }

  @ParameterizedTest(name = "seed={0}")
  @MethodSource("seeds")
  void randomPutsGetsAndRemovesBehaveLikeAHashMap(long seed) {
    LOG.info(
        "{} randomPutsGetsAndRemovesBehaveLikeAHashMap seed={}", getClass().getSimpleName(), seed);
    Random random = new Random(seed);
    Map<String, Integer> model = new HashMap<>();
    for (int op = 0; op < 400; op++) {
      String k = "k" + random.nextInt(40);
      int dice = random.nextInt(10);
      if (dice < 5) {
        int v = random.nextInt(100);
        assertThat(map.put(k, v))
            .as("seed %d op %d: put %s", seed, op, k)
            .isEqualTo(model.put(k, v));
      } else if (dice < 8) {
        assertThat(map.remove(k))
            .as("seed %d op %d: remove %s", seed, op, k)
            .isEqualTo(model.remove(k));
      } else {
        assertThat(map.get(k)).as("seed %d op %d: get %s", seed, op, k).isEqualTo(model.get(k));
        assertThat(map.containsKey(k)).isEqualTo(model.containsKey(k));
      }
      assertThat(map.size()).as("seed %d op %d: size", seed, op).isEqualTo(model.size());
      if (op % 50 == 0) {
        assertThat(map).as("seed %d op %d", seed, op).isEqualTo(model);
      }
    }
    assertThat(map).isEqualTo(model);
    assertThat(model).isEqualTo(map);
    assertThat(map.hashCode()).isEqualTo(model.hashCode());
    assertThat(map.isEmpty()).isEqualTo(model.isEmpty());
  }

  @Test
  void defaultMethodsFollowTheMapContract() {
    Map<String, Integer> model = new HashMap<>();
    for (Map<String, Integer> m : List.of(map, model)) {
      m.put("a", 1);
      m.put("b", 2);
      m.put("c", 3);
    }
    assertThat(map.putIfAbsent("a", 9)).isEqualTo(model.putIfAbsent("a", 9)).isEqualTo(1);
    assertThat(map.putIfAbsent("d", 4)).isEqualTo(model.putIfAbsent("d", 4)).isNull();
    assertThat(map.replace("a", 10)).isEqualTo(model.replace("a", 10)).isEqualTo(1);
    assertThat(map.replace("zz", 10)).isEqualTo(model.replace("zz", 10)).isNull();
    assertThat(map.replace("b", 2, 20)).isEqualTo(model.replace("b", 2, 20)).isTrue();
    assertThat(map.replace("b", 2, 30)).isEqualTo(model.replace("b", 2, 30)).isFalse();
    assertThat(map.remove("c", 99)).isEqualTo(model.remove("c", 99)).isFalse();
    assertThat(map.remove("c", 3)).isEqualTo(model.remove("c", 3)).isTrue();
    assertThat(map.computeIfAbsent("e", k -> 5))
        .isEqualTo(model.computeIfAbsent("e", k -> 5))
        .isEqualTo(5);
    assertThat(map.computeIfAbsent("e", k -> 50))
        .isEqualTo(model.computeIfAbsent("e", k -> 50))
        .isEqualTo(5);
    assertThat(map.computeIfAbsent("f", k -> null))
        .isEqualTo(model.computeIfAbsent("f", k -> null))
        .isNull();
    assertThat(map.computeIfPresent("e", (k, v) -> v + 1))
        .isEqualTo(model.computeIfPresent("e", (k, v) -> v + 1));
    assertThat(map.computeIfPresent("e", (k, v) -> null))
        .isEqualTo(model.computeIfPresent("e", (k, v) -> null));
    assertThat(map.computeIfPresent("zz", (k, v) -> 1))
        .isEqualTo(model.computeIfPresent("zz", (k, v) -> 1));
    assertThat(map.compute("a", (k, v) -> v == null ? 0 : v * 2))
        .isEqualTo(model.compute("a", (k, v) -> v == null ? 0 : v * 2));
    assertThat(map.compute("g", (k, v) -> v == null ? 7 : v))
        .isEqualTo(model.compute("g", (k, v) -> v == null ? 7 : v));
    assertThat(map.compute("g", (k, v) -> null)).isEqualTo(model.compute("g", (k, v) -> null));
    assertThat(map.merge("a", 5, Integer::sum)).isEqualTo(model.merge("a", 5, Integer::sum));
    assertThat(map.merge("h", 5, Integer::sum)).isEqualTo(model.merge("h", 5, Integer::sum));
    assertThat(map.merge("h", 5, (x, y) -> null)).isEqualTo(model.merge("h", 5, (x, y) -> null));
    assertThat(map.getOrDefault("a", -1)).isEqualTo(model.getOrDefault("a", -1));
    assertThat(map.getOrDefault("zz", -1)).isEqualTo(model.getOrDefault("zz", -1));
    map.replaceAll((k, v) -> v + 100);
    model.replaceAll((k, v) -> v + 100);
    assertThat(map).isEqualTo(model);
    Map<String, Integer> visited = new HashMap<>();
    map.forEach(visited::put);
    assertThat(visited).isEqualTo(model);
  }

  @Test
  void equalsHashCodeAndToStringFollowTheMapContract() {
    Map<String, Integer> model = new HashMap<>();
    assertThat(map).isEqualTo(model);
    assertThat(map.hashCode()).isZero();
    assertThat(map.toString()).isEqualTo("{}");
    map.put("a", 1);
    model.put("a", 1);
    assertThat(map.toString()).isEqualTo("{a=1}");
    for (int i = 0; i < 20; i++) {
      map.put("k" + i, i);
      model.put("k" + i, i);
    }
    assertThat(map.equals(model)).isTrue();
    assertThat(model.equals(map)).isTrue();
    assertThat(map.hashCode()).isEqualTo(model.hashCode());
    assertThat(map.equals(map)).isTrue();
    assertThat(map.equals(openMap(rt, name))).as("another handle of the same map").isTrue();
    model.put("k0", 99);
    assertThat(map.equals(model)).isFalse();
    assertThat(model.equals(map)).isFalse();
    assertThat(map.equals(new ArrayList<>(model.values()))).isFalse();
    assertThat(map.equals(null)).isFalse();
  }

  @Test
  void iteratorsWalkOneVersionWithoutConcurrentModificationErrors() {
    map.put("a", 1);
    map.put("b", 2);
    map.put("c", 3);
    Iterator<Map.Entry<String, Integer>> it = map.entrySet().iterator();
    map.put("d", 4);
    map.remove("a");
    Map<String, Integer> seen = new HashMap<>();
    while (it.hasNext()) {
      Map.Entry<String, Integer> e = it.next();
      seen.put(e.getKey(), e.getValue());
      map.put("x" + e.getKey(), 0);
    }
    assertThat(seen)
        .as("the version the iterator was created on")
        .isEqualTo(Map.of("a", 1, "b", 2, "c", 3));
    assertThatThrownBy(it::next).isInstanceOf(NoSuchElementException.class);
    assertThat(map).containsOnlyKeys("b", "c", "d", "xa", "xb", "xc");
  }

  @Test
  void iteratorRemoveWritesThroughAndNeedsAnElement() {
    for (int i = 0; i < 10; i++) {
      map.put("k" + i, i);
    }
    Iterator<String> keys = map.keySet().iterator();
    assertThatThrownBy(keys::remove).isInstanceOf(IllegalStateException.class);
    while (keys.hasNext()) {
      String k = keys.next();
      if (Integer.parseInt(k.substring(1)) % 2 == 0) {
        keys.remove();
        assertThatThrownBy(keys::remove).isInstanceOf(IllegalStateException.class);
      }
    }
    assertThat(map).containsOnlyKeys("k1", "k3", "k5", "k7", "k9");
    Iterator<Integer> values = map.values().iterator();
    while (values.hasNext()) {
      if (values.next() == 3) {
        values.remove();
      }
    }
    assertThat(map).containsOnlyKeys("k1", "k5", "k7", "k9");
    Iterator<Map.Entry<String, Integer>> entries = map.entrySet().iterator();
    while (entries.hasNext()) {
      if (entries.next().getKey().equals("k5")) {
        entries.remove();
      }
    }
    assertThat(map).containsOnlyKeys("k1", "k7", "k9");
  }

  @Test
  void viewsAreLiveAndWriteThrough() {
    Set<String> keys = map.keySet();
    Set<Map.Entry<String, Integer>> entries = map.entrySet();
    assertThat(keys).isEmpty();
    map.put("a", 1);
    map.put("b", 2);
    map.put("c", 3);
    assertThat(keys).hasSize(3).contains("a").doesNotContain("z");
    assertThat(keys).isEqualTo(new HashSet<>(List.of("a", "b", "c")));
    assertThat(map.values()).containsExactlyInAnyOrder(1, 2, 3);
    assertThat(map.values().contains(2)).isTrue();
    assertThat(entries.contains(Map.entry("a", 1))).isTrue();
    assertThat(entries.contains(Map.entry("a", 2))).isFalse();
    assertThat(keys.contains(null)).isFalse();
    assertThat(map.values().contains(null)).isFalse();

    assertThat(keys.remove("a")).isTrue();
    assertThat(keys.remove("a")).isFalse();
    assertThat(map).doesNotContainKey("a");
    assertThat(entries.remove(Map.entry("b", 99))).isFalse();
    assertThat(entries.remove(Map.entry("b", 2))).isTrue();
    assertThat(map).containsOnlyKeys("c");

    Map.Entry<String, Integer> c = entries.iterator().next();
    assertThat(c.setValue(30)).isEqualTo(3);
    assertThat(c.getValue()).isEqualTo(30);
    assertThat(map.get("c")).isEqualTo(30);
    assertThat(c).isEqualTo(Map.entry("c", 30));
    assertThat(c.hashCode()).isEqualTo(Map.entry("c", 30).hashCode());

    map.put("d", 4);
    keys.clear();
    assertThat(map).isEmpty();
    assertThat(entries).isEmpty();
  }

  @Test
  void putAllAndClear() {
    Map<String, Integer> source = new HashMap<>();
    for (int i = 0; i < 30; i++) {
      source.put("k" + i, i);
    }
    map.put("k0", -1);
    map.put("other", 7);
    map.putAll(source);
    Map<String, Integer> expected = new HashMap<>(source);
    expected.put("other", 7);
    assertThat(map).isEqualTo(expected);
    map.putAll(Map.of());
    assertThat(map).isEqualTo(expected);
    map.clear();
    assertThat(map).isEmpty();
    assertThat(map.size()).isZero();
    assertThat(map.get("k1")).isNull();
  }

  @Test
  void nullKeysAndValuesAreRefusedAndChangeNothing() {
    map.put("a", 1);
    assertThatThrownBy(() -> map.put(null, 1)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.put("b", null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.get(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.containsKey(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.containsValue(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.remove(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.putIfAbsent("b", null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.merge("a", null, Integer::sum))
        .isInstanceOf(NullPointerException.class);
    Map<String, Integer> withNull = new HashMap<>();
    withNull.put("c", 3);
    withNull.put("d", null);
    assertThatThrownBy(() -> map.putAll(withNull)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.entrySet().iterator().next().setValue(null))
        .isInstanceOf(NullPointerException.class);
    assertThat(map).isEqualTo(Map.of("a", 1));
  }

  @Test
  void anotherRuntimeSeesTheSameMap() {
    for (int i = 0; i < 50; i++) {
      map.put("k" + i, i);
    }
    map.remove("k7");
    Map<String, Integer> other = openMap(newRuntime(), name);
    assertThat(other).isEqualTo(map).hasSize(49);
    other.put("k7", 70);
    assertThat(map.get("k7")).isEqualTo(70);
    assertThat(map).isEqualTo(other);
  }
}
