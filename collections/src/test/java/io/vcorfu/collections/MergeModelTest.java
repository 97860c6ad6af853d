package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Merges of {@link CSMRMap}s against an in-memory model of versioned maps: random updates (those of
 * {@link ForkModelTest}) on a map and its forks, forks of forks at random versions, and merges in
 * random directions (fork into parent, parent into fork, fork into fork, into a map merged before)
 * with each policy and a user resolver. The model keeps every map's state at every address, the
 * forks' bases and the merges it made, picks the common base by itself (the last merge between the
 * two maps, else where their fork chains meet) and merges three-way. After every merge the target
 * (and its merge records) must equal the model's; a merge with FAIL that the model says conflicts
 * must throw naming exactly the model's conflicting keys and write nothing; a merge repeated at
 * once must change nothing. Seeds are logged.
 */
class MergeModelTest {
  private static final int OPERATIONS = 160;

  private final Harness harness = new Harness();
  private final String prefix = "merge-model-" + UUID.randomUUID() + "-";

  @AfterEach
  void close() {
    harness.close();
  }

  /** One map of the model: its handle, its parent and base (a fork), its states by address. */
  private static final class Model {
    final CSMRMap<String, Map<String, Object>> map;
    final Model parent;
    final long base;
    final NavigableMap<Long, Map<String, Map<String, Object>>> states = new TreeMap<>();
    final List<MergeRecord> merges = new ArrayList<>();

    Model(
        CSMRMap<String, Map<String, Object>> map,
        Model parent,
        long base,
        Map<String, Map<String, Object>> initial) {
      this.map = map;
      this.parent = parent;
      this.base = base;
      states.put(Long.MIN_VALUE, initial);
    }

    Map<String, Map<String, Object>> at(long address) {
      return states.floorEntry(address).getValue();
    }

    Map<String, Map<String, Object>> now() {
      return states.lastEntry().getValue();
    }

    String name() {
      return map.name();
    }
  }

  /**
   * The resolvers under test: each policy, the field merge falling back to the source, and a user
   * resolver (field union, else remove).
   */
  private enum Resolution {
    SOURCE_WINS,
    TARGET_WINS,
    FAIL,
    BY_FIELD,
    FIELDS
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void everyMergeInEveryDirectionEqualsTheModelsThreeWayMerge(int buckets) {
    long seed = Long.getLong("merge.seed", new Random().nextLong());
    System.out.printf("MergeModelTest buckets %d seed %d%n", buckets, seed);
    Random random = new Random(seed);
    VCorfuRuntime rt = harness.runtime();
    List<Model> maps = new ArrayList<>();
    maps.add(new Model(CSMRMap.open(rt, prefix + "root", buckets), null, -1, Map.of()));
    List<Long> addresses = new ArrayList<>(List.of(-1L));
    int merged = 0;
    int failed = 0;
    for (int op = 0; op < OPERATIONS; op++) {
      int kind = random.nextInt(100);
      if (kind < 8 || maps.size() < 2) {
        Model parent = maps.get(random.nextInt(maps.size()));
        long base = addresses.get(random.nextInt(addresses.size()));
        String name = prefix + "f" + maps.size();
        maps.add(new Model(parent.map.fork(name, base), parent, base, parent.at(base)));
      } else if (kind < 30) {
        Model target = maps.get(random.nextInt(maps.size()));
        Model source = maps.get(random.nextInt(maps.size()));
        if (target == source) {
          continue;
        }
        Resolution how = Resolution.values()[random.nextInt(Resolution.values().length)];
        String what =
            String.format("%s into %s, %s (seed %d)", source.name(), target.name(), how, seed);
        if (merge(rt, target, source, how, what, addresses)) {
          merged++;
          Map<String, Map<String, Object>> before = target.now();
          MergeResult<String, Map<String, Object>> again =
              target.map.merge(source.map, MergePolicy.FAIL);
          assertThat(again.applied().isEmpty()).as("merged again: %s", what).isTrue();
          assertThat(again.conflicts()).as("merged again: %s", what).isEmpty();
          target.states.put(again.commit(), before);
          target.merges.add(new MergeRecord(source.name(), again.sourceVersion(), again.commit()));
          addresses.add(again.commit());
          assertThat(target.map.snapshot()).as("merged again: %s", what).isEqualTo(before);
        } else {
          failed++;
        }
      } else {
        Model target = maps.get(random.nextInt(maps.size()));
        Map<String, Map<String, Object>> model = new HashMap<>(target.now());
        rt.TXBegin();
        ForkModelTest.apply(random, target.map, model, op);
        long address = rt.TXEnd();
        target.states.put(address, model);
        addresses.add(address);
      }
    }
    System.out.printf(
        "MergeModelTest %d maps, %d merges, %d refused for conflicts%n",
        maps.size(), merged, failed);
    assertThat(merged).as("merges made (seed %d)", seed).isPositive();
    VCorfuRuntime fresh = harness.runtime();
    for (Model m : maps) {
      assertThat(m.map.snapshot()).as("%s (seed %d)", m.name(), seed).isEqualTo(m.now());
      CSMRMap<String, Map<String, Object>> reopened = CSMRMap.open(fresh, m.name());
      assertThat(reopened.snapshot())
          .as("%s read by a fresh runtime (seed %d)", m.name(), seed)
          .isEqualTo(m.now());
      assertThat(reopened.merges()).as("%s merges (seed %d)", m.name(), seed).isEqualTo(m.merges);
    }
  }

  /** Merges {@code source} into {@code target} and checks it; false when it failed on conflicts. */
  private static boolean merge(
      VCorfuRuntime rt,
      Model target,
      Model source,
      Resolution how,
      String what,
      List<Long> addresses) {
    long now = MapFork.now(rt);
    if (how == Resolution.FAIL) {
      Set<String> conflicts = new HashSet<>();
      threeWay(base(target, source, now), target.now(), source.now(), how, conflicts);
      if (!conflicts.isEmpty()) {
        assertThatThrownBy(() -> target.map.merge(source.map))
            .as(what)
            .isInstanceOfSatisfying(
                MergeConflictException.class,
                e -> assertThat(new HashSet<>(e.keys())).isEqualTo(conflicts));
        assertThat(MapFork.now(rt)).as("nothing written: %s", what).isEqualTo(now);
        return false;
      }
    }
    MergeResult<String, Map<String, Object>> result =
        switch (how) {
          case SOURCE_WINS -> target.map.merge(source.map, MergePolicy.SOURCE_WINS);
          case TARGET_WINS -> target.map.merge(source.map, MergePolicy.TARGET_WINS);
          case FAIL -> target.map.merge(source.map);
          case BY_FIELD ->
              target.map.merge(source.map, MergeResolver.byField(MergePolicy.SOURCE_WINS));
          case FIELDS -> target.map.merge(source.map, MergeModelTest::fields);
        };
    long sv = result.sourceVersion();
    Set<String> conflicts = new HashSet<>();
    Map<String, Map<String, Object>> expected =
        threeWay(base(target, source, sv), target.now(), source.at(sv), how, conflicts);
    assertThat(result.conflicts()).as("conflicts: %s", what).isEqualTo(conflicts);
    assertThat(target.map.snapshot()).as(what).isEqualTo(expected);
    assertThat(result.applied())
        .as("applied: %s", what)
        .isEqualTo(
            ForkModelTest.expected(result.commit() - 1, result.commit(), target.now(), expected));
    target.states.put(result.commit(), expected);
    target.merges.add(new MergeRecord(source.name(), sv, result.commit()));
    addresses.add(result.commit());
    assertThat(target.map.merges()).as("merges: %s", what).isEqualTo(target.merges);
    return true;
  }

  /** The model's common base of {@code target} and {@code source} as of {@code now}. */
  private static Map<String, Map<String, Object>> base(Model target, Model source, long now) {
    MergeRecord intoTarget = last(target.merges, source.name());
    MergeRecord intoSource = last(source.merges, target.name());
    if (intoTarget != null
        && (intoSource == null || intoTarget.targetVersion() > intoSource.targetVersion())) {
      return source.at(intoTarget.sourceVersion());
    }
    if (intoSource != null) {
      return target.at(intoSource.sourceVersion());
    }
    for (Model t = target, tAt = null; t != null; tAt = t, t = t.parent) {
      long tVersion = tAt == null ? now : tAt.base;
      for (Model s = source, sAt = null; s != null; sAt = s, s = s.parent) {
        if (s == t) {
          long sVersion = sAt == null ? now : sAt.base;
          return t.at(Math.min(tVersion, sVersion));
        }
      }
    }
    throw new AssertionError("every map of the model descends from the root");
  }

  private static MergeRecord last(List<MergeRecord> records, String source) {
    MergeRecord last = null;
    for (MergeRecord r : records) {
      last = r.source().equals(source) ? r : last;
    }
    return last;
  }

  /** The three-way merge of {@code source} into {@code target}; adds the conflicting keys. */
  private static Map<String, Map<String, Object>> threeWay(
      Map<String, Map<String, Object>> base,
      Map<String, Map<String, Object>> target,
      Map<String, Map<String, Object>> source,
      Resolution how,
      Set<String> conflicts) {
    Set<String> keys = new HashSet<>(base.keySet());
    keys.addAll(target.keySet());
    keys.addAll(source.keySet());
    Map<String, Map<String, Object>> merged = new HashMap<>();
    for (String key : keys) {
      Map<String, Object> b = base.get(key);
      Map<String, Object> t = target.get(key);
      Map<String, Object> s = source.get(key);
      Map<String, Object> m;
      if (Objects.equals(s, b) || Objects.equals(t, s)) {
        m = t;
      } else if (Objects.equals(t, b)) {
        m = s;
      } else {
        conflicts.add(key);
        m =
            switch (how) {
              case SOURCE_WINS -> s;
              case TARGET_WINS, FAIL -> t;
              case BY_FIELD -> t == null || s == null ? s : byField(b, t, s);
              case FIELDS ->
                  fields(
                          key,
                          Optional.ofNullable(b),
                          Optional.ofNullable(t),
                          Optional.ofNullable(s))
                      .orElse(null);
            };
      }
      if (m != null) {
        merged.put(key, m);
      }
    }
    return merged;
  }

  /** The model of a field merge where the source wins fields both changed. */
  private static Map<String, Object> byField(
      Map<String, Object> base, Map<String, Object> target, Map<String, Object> source) {
    Map<String, Object> old = base == null ? Map.of() : base;
    Map<String, Object> merged = new HashMap<>();
    Set<String> fields = new HashSet<>(old.keySet());
    fields.addAll(target.keySet());
    fields.addAll(source.keySet());
    for (String field : fields) {
      Object value =
          Objects.equals(source.get(field), old.get(field)) ? target.get(field) : source.get(field);
      if (value != null) {
        merged.put(field, value);
      }
    }
    return merged;
  }

  /** A user resolver: both present, the target's fields with the source's over them; else gone. */
  private static Optional<Map<String, Object>> fields(
      String key,
      Optional<Map<String, Object>> base,
      Optional<Map<String, Object>> target,
      Optional<Map<String, Object>> source) {
    if (target.isEmpty() || source.isEmpty()) {
      return Optional.empty();
    }
    Map<String, Object> union = new LinkedHashMap<>(target.get());
    union.putAll(source.get());
    return Optional.of(union);
  }
}
