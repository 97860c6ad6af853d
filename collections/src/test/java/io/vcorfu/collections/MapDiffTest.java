package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link CSMRMap#diff} against an in-memory model: random sequences of puts, blind puts, removes,
 * field updates, clears and multi-key transactions over a few buckets, the model's state recorded
 * at each commit's global address; then the diff between random pairs of those versions (and
 * versions between commits, and -1) must equal the difference of the model's states. Seeds are
 * logged.
 */
class MapDiffTest {
  private static final int KEYS = 12;
  private static final int OPERATIONS = 120;
  private static final int PAIRS = 60;

  private final Harness harness = new Harness();
  private final String name = "diff-" + UUID.randomUUID();

  @AfterEach
  void close() {
    harness.close();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void everyDiffEqualsTheModelsDifference(int buckets) {
    long seed = new Random().nextLong();
    System.out.printf("MapDiffTest buckets %d seed %d%n", buckets, seed);
    Random random = new Random(seed);
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Map<String, Object>> map = CSMRMap.open(rt, name, buckets);
    Map<String, Map<String, Object>> model = new HashMap<>();
    List<Long> versions = new ArrayList<>(List.of(-1L));
    List<Map<String, Map<String, Object>>> states = new ArrayList<>(List.of(Map.of()));
    for (int op = 0; op < OPERATIONS; op++) {
      rt.TXBegin();
      int calls = random.nextInt(8) == 0 ? 2 + random.nextInt(3) : 1;
      for (int c = 0; c < calls; c++) {
        apply(random, map, model, op);
      }
      long address = rt.TXEnd();
      versions.add(address);
      states.add(copy(model));
    }
    for (int p = 0; p < PAIRS; p++) {
      int a = random.nextInt(versions.size());
      int b = a + random.nextInt(versions.size() - a);
      // Half the time, an address between two commits: the same state as the older one's.
      boolean between =
          a > 0 && a + 1 < versions.size() && versions.get(a) + 1 < versions.get(a + 1);
      long to = versions.get(b);
      long from = Math.min(to, versions.get(a) + (between && random.nextBoolean() ? 1 : 0));
      MapDiff<String, Map<String, Object>> diff = map.diff(from, to);
      assertThat(diff)
          .as("diff from %d to %d (seed %d)", from, to, seed)
          .isEqualTo(expected(from, to, states.get(a), states.get(b)));
    }
  }

  @Test
  void aKeyWrittenBackToItsOldValueIsNoDifferenceAndEqualVersionsDiffEmpty() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, String> map = CSMRMap.open(rt, name, 2);
    map.put("a", "1");
    map.put("b", "1");
    long first = map.history("b", Long.MAX_VALUE, 1).items().get(0).globalAddress();
    map.put("a", "2");
    map.put("a", "1");
    map.put("c", "3");
    map.remove("b");
    long last = map.history("b", Long.MAX_VALUE, 1).items().get(0).globalAddress(); // remove
    MapDiff<String, String> diff = map.diff(first, last);
    assertThat(diff.added()).isEqualTo(Map.of("c", "3"));
    assertThat(diff.removed()).isEqualTo(Map.of("b", "1"));
    assertThat(diff.changed()).isEmpty();
    assertThat(map.diff(last, last).isEmpty()).isTrue();
    assertThat(map.diff(-1, first).added()).isEqualTo(Map.of("a", "1", "b", "1"));
    assertThatThrownBy(() -> map.diff(last, first))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("to a later or equal one");
  }

  @Test
  void aDiffReachingBelowTheTrimMarkFailsAsTrimmed() throws Exception {
    CSMRMap<String, Integer> map = CSMRMap.open(harness.runtime(), name, 1);
    for (int i = 0; i < 10; i++) {
      map.put("k" + i, i);
    }
    List<KeyVersion<Integer>> k3 = map.history("k3", Long.MAX_VALUE, 1).items();
    List<KeyVersion<Integer>> k8 = map.history("k8", Long.MAX_VALUE, 1).items();
    try (StreamLog log = harness.newLog()) {
      log.trimStream(StreamId.of(CSMRMap.bucketStreamName(name, 0)), 6).get(30, TimeUnit.SECONDS);
    }
    // Read by another client: the writer's own cache of what it wrote is not the replicas'.
    CSMRMap<String, Integer> reader = CSMRMap.open(harness.runtime(), name);
    long from = k3.get(0).globalAddress();
    long to = k8.get(0).globalAddress();
    assertThatThrownBy(() -> reader.diff(from, to)).isInstanceOf(TrimmedException.class);
  }

  private static void apply(
      Random random,
      CSMRMap<String, Map<String, Object>> map,
      Map<String, Map<String, Object>> model,
      int op) {
    String key = "k" + random.nextInt(KEYS);
    Map<String, Object> value = Map.of("v", op, "w", random.nextInt(3));
    int kind = random.nextInt(100);
    if (kind < 40) {
      map.put(key, value);
      model.put(key, value);
    } else if (kind < 55) {
      map.fastPut(key, value);
      model.put(key, value);
    } else if (kind < 75) {
      map.remove(key);
      model.remove(key);
    } else if (kind < 97) {
      Map<String, Object> fields = Map.of("f", random.nextInt(2));
      map.fastUpdateFields(key, fields);
      Map<String, Object> old = model.get(key);
      if (old != null) {
        Map<String, Object> updated = new LinkedHashMap<>(old);
        updated.putAll(fields);
        model.put(key, updated);
      }
    } else {
      map.clear();
      model.clear();
    }
  }

  private static Map<String, Map<String, Object>> copy(Map<String, Map<String, Object>> m) {
    return new HashMap<>(m);
  }

  private static MapDiff<String, Map<String, Object>> expected(
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
