package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Forks of {@link CSMRMap}s against an in-memory model of versioned maps: random puts, blind puts,
 * removes, field updates, read-then-write calls, multi-key transactions and clears on a map and on
 * its forks, forks taken at random versions (past ones included) of the map and of forks, forks of
 * forks; the model keeps every map's state at every global address. Every read along the way, every
 * map at the end (also read by a fresh runtime), the diff between every pair of maps (now and at
 * past versions) and diffs between versions of forks must equal the model's. Seeds are logged.
 */
class ForkModelTest {
  private static final int KEYS = 10;
  private static final int OPERATIONS = 140;

  private final Harness harness = new Harness();
  private final String prefix = "fork-model-" + UUID.randomUUID() + "-";

  @AfterEach
  void close() {
    harness.close();
  }

  /** One map of the model: its handle and its state after each of its commits, by address. */
  private record Versioned(
      CSMRMap<String, Map<String, Object>> map,
      NavigableMap<Long, Map<String, Map<String, Object>>> states) {
    Map<String, Map<String, Object>> at(long address) {
      return states.floorEntry(address).getValue();
    }

    Map<String, Map<String, Object>> now() {
      return states.lastEntry().getValue();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void everyReadAndEveryDiffOfMapsAndForksEqualsTheModels(int buckets) {
    long seed = Long.getLong("fork.seed", new Random().nextLong());
    System.out.printf("ForkModelTest buckets %d seed %d%n", buckets, seed);
    Random random = new Random(seed);
    VCorfuRuntime rt = harness.runtime();
    List<Versioned> maps = new ArrayList<>();
    maps.add(versioned(CSMRMap.open(rt, prefix + "root", buckets), Map.of()));
    List<Long> addresses = new ArrayList<>(List.of(-1L));
    for (int op = 0; op < OPERATIONS; op++) {
      if (random.nextInt(100) < 8) {
        Versioned parent = maps.get(random.nextInt(maps.size()));
        long base = addresses.get(random.nextInt(addresses.size()));
        String name = prefix + "f" + maps.size();
        maps.add(versioned(parent.map().fork(name, base), parent.at(base)));
        continue;
      }
      Versioned target = maps.get(random.nextInt(maps.size()));
      Map<String, Map<String, Object>> model = new HashMap<>(target.now());
      rt.TXBegin();
      int calls = random.nextInt(8) == 0 ? 2 + random.nextInt(3) : 1;
      for (int c = 0; c < calls; c++) {
        apply(random, target.map(), model, op);
      }
      long address = rt.TXEnd();
      target.states().put(address, model);
      addresses.add(address);
      String key = "k" + random.nextInt(KEYS);
      assertThat(target.map().get(key))
          .as("get %s of %s (seed %d)", key, target.map().name(), seed)
          .isEqualTo(model.get(key));
      assertThat(target.map().size()).as("size (seed %d)", seed).isEqualTo(model.size());
    }
    long now = MapFork.now(rt);
    int depth = maps.stream().mapToInt(v -> v.map().lineage().size()).max().orElse(0);
    System.out.printf("ForkModelTest %d maps, forks %d deep%n", maps.size(), depth);
    assertThat(maps).as("forks were taken (seed %d)", seed).hasSizeGreaterThan(2);
    VCorfuRuntime fresh = harness.runtime();
    for (Versioned v : maps) {
      assertThat(v.map().snapshot()).as("%s (seed %d)", v.map().name(), seed).isEqualTo(v.now());
      CSMRMap<String, Map<String, Object>> reopened = CSMRMap.open(fresh, v.map().name());
      assertThat(reopened.forkBase()).isEqualTo(v.map().forkBase());
      assertThat(new HashMap<>(reopened))
          .as("%s read by a fresh runtime (seed %d)", v.map().name(), seed)
          .isEqualTo(v.now());
    }
    for (Versioned a : maps) {
      for (Versioned b : maps) {
        assertThat(a.map().diff(b.map()))
            .as("%s against %s (seed %d)", a.map().name(), b.map().name(), seed)
            .isEqualTo(expected(now, now, b.now(), a.now()));
        long at = addresses.get(random.nextInt(addresses.size()));
        assertThat(a.map().diff(b.map(), at))
            .as("%s against %s at %d (seed %d)", a.map().name(), b.map().name(), at, seed)
            .isEqualTo(expected(at, at, b.at(at), a.at(at)));
      }
      long x = addresses.get(random.nextInt(addresses.size()));
      long y = addresses.get(random.nextInt(addresses.size()));
      long from = Math.min(x, y);
      long to = Math.max(x, y);
      assertThat(a.map().diff(from, to))
          .as("%s from %d to %d (seed %d)", a.map().name(), from, to, seed)
          .isEqualTo(expected(from, to, a.at(from), a.at(to)));
    }
  }

  private static Versioned versioned(
      CSMRMap<String, Map<String, Object>> map, Map<String, Map<String, Object>> initial) {
    NavigableMap<Long, Map<String, Map<String, Object>>> states = new TreeMap<>();
    states.put(Long.MIN_VALUE, initial);
    return new Versioned(map, states);
  }

  static void apply(
      Random random,
      CSMRMap<String, Map<String, Object>> map,
      Map<String, Map<String, Object>> model,
      int op) {
    String key = "k" + random.nextInt(KEYS);
    Map<String, Object> value = Map.of("v", op, "w", random.nextInt(3));
    int kind = random.nextInt(100);
    if (kind < 30) {
      assertThat(map.put(key, value)).isEqualTo(model.put(key, value));
    } else if (kind < 42) {
      map.fastPut(key, value);
      model.put(key, value);
    } else if (kind < 60) {
      assertThat(map.remove(key)).isEqualTo(model.remove(key));
    } else if (kind < 72) {
      Map<String, Object> fields = Map.of("f", random.nextInt(2));
      map.fastUpdateFields(key, fields);
      Map<String, Object> old = model.get(key);
      if (old != null) {
        Map<String, Object> updated = new LinkedHashMap<>(old);
        updated.putAll(fields);
        model.put(key, updated);
      }
    } else if (kind < 82) {
      assertThat(map.putIfAbsent(key, value)).isEqualTo(model.putIfAbsent(key, value));
    } else if (kind < 90) {
      assertThat(map.computeIfPresent(key, (k, v) -> null))
          .isEqualTo(model.computeIfPresent(key, (k, v) -> null));
    } else if (kind < 97) {
      Map<String, Map<String, Object>> more = new HashMap<>();
      more.put(key, value);
      more.put("k" + random.nextInt(KEYS), value);
      map.putAll(more);
      model.putAll(more);
    } else if (random.nextBoolean()) {
      map.clear();
      model.clear();
    } else {
      assertThat(map.remove(key)).isEqualTo(model.remove(key));
    }
  }

  /** The diff from {@code before} to {@code after}, as {@link MapDiff} states it. */
  static MapDiff<String, Map<String, Object>> expected(
      long from,
      long to,
      Map<String, Map<String, Object>> before,
      Map<String, Map<String, Object>> after) {
    Map<String, Map<String, Object>> added = new HashMap<>();
    Map<String, Map<String, Object>> removed = new HashMap<>();
    Map<String, MapDiff.ValueChange<Map<String, Object>>> changed = new HashMap<>();
    for (Map.Entry<String, Map<String, Object>> e : after.entrySet()) {
      Map<String, Object> old = before.get(e.getKey());
      if (old == null) {
        added.put(e.getKey(), e.getValue());
      } else if (!old.equals(e.getValue())) {
        changed.put(e.getKey(), new MapDiff.ValueChange<>(old, e.getValue()));
      }
    }
    for (Map.Entry<String, Map<String, Object>> e : before.entrySet()) {
      if (!after.containsKey(e.getKey())) {
        removed.put(e.getKey(), e.getValue());
      }
    }
    return new MapDiff<>(from, to, added, removed, changed);
  }
}
