package io.vcorfu.collections;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ObjectUpdates;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What differs between two versions of a {@link CSMRMap}: the keys present at {@code to} but not at
 * {@code from} ({@code added}, with their values at {@code to}), present at {@code from} but not at
 * {@code to} ({@code removed}, with their values at {@code from}), and present at both with values
 * that are not {@code equals} ({@code changed}). A key written between the two versions and back to
 * its old value is in none of them. Versions are global addresses, as everywhere: the map as of
 * {@code a} has every update at or below {@code a}.
 *
 * <p>Computed from the updates between the two versions, not from two whole states: each bucket's
 * entries above {@code from} and up to {@code to} are read back from its stream replica; a bucket
 * with none is not read further. For a bucket with some, the map's state as of {@code from} is
 * rebuilt (a snapshot view, from its nearest checkpoint) and the updates are applied to the keys
 * they touch; only a bucket with a field update ({@link CSMRMap#fastUpdateFields}) or a clear is
 * also compared against its state as of {@code to} or in whole.
 *
 * @param from the older version
 * @param to the newer version
 * @param added keys present only at {@code to}, with their values there
 * @param removed keys present only at {@code from}, with their values there
 * @param changed keys present at both whose values differ
 */
public record MapDiff<K, V>(
    long from, long to, Map<K, V> added, Map<K, V> removed, Map<K, ValueChange<V>> changed) {

  /** A key's value at the older and at the newer version. */
  public record ValueChange<V>(V before, V after) {}

  public MapDiff {
    added = Map.copyOf(added);
    removed = Map.copyOf(removed);
    changed = Map.copyOf(changed);
  }

  /** True when the two versions hold the same keys with equal values. */
  public boolean isEmpty() {
    return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
  }

  /** A key's fate among a bucket's updates: its last value, absent, or "read it at to". */
  private record Fate(Object value, boolean present, boolean fields) {
    static final Fate ABSENT = new Fate(null, false, false);
    static final Fate FIELDS = new Fate(null, true, true);
  }

  /** See {@link CSMRMap#diff}. */
  static <K, V> MapDiff<K, V> of(CSMRMap<K, V> map, VCorfuRuntime rt, long from, long to) {
    if (from < -1 || to < from) {
      throw new IllegalArgumentException(
          "a diff runs from a version (-1 or more) to a later or equal one, not from "
              + from
              + " to "
              + to);
    }
    Map<K, V> added = new HashMap<>();
    Map<K, V> removed = new HashMap<>();
    Map<K, ValueChange<V>> changed = new HashMap<>();
    for (int i = 0; i < map.bucketCount(); i++) {
      StreamId stream = StreamId.of(CSMRMap.bucketStreamName(map.name(), i));
      List<ObjectUpdates> updates = from == to ? List.of() : rt.updates(stream, from, to);
      Map<K, Fate> fates = new HashMap<>();
      boolean cleared = false;
      for (ObjectUpdates u : updates) {
        MapUpdate<K, V> m = MapUpdate.of(u);
        if (m == null) {
          continue;
        }
        for (MapUpdate.Change<K, V> c : m.changes()) {
          switch (c.kind()) {
            case PUT -> fates.put(c.key(), new Fate(c.value(), true, false));
            case REMOVE -> fates.put(c.key(), Fate.ABSENT);
            case UPDATE_FIELDS -> fates.put(c.key(), Fate.FIELDS);
            case CLEAR -> {
              fates.clear();
              cleared = true;
            }
          }
        }
      }
      if (fates.isEmpty() && !cleared) {
        continue;
      }
      Bucket<K, V> before = map.bucketAt(i, from, false);
      Bucket<K, V> after = null;
      Set<K> keys = new HashSet<>(fates.keySet());
      if (cleared) {
        keys.addAll(before.keySet());
      }
      for (K key : keys) {
        V old = before.get(key);
        Fate fate = fates.getOrDefault(key, Fate.ABSENT);
        V now;
        if (fate.fields()) {
          after = after != null ? after : map.bucketAt(i, to, false);
          now = after.get(key);
        } else {
          @SuppressWarnings("unchecked")
          V value = fate.present() ? (V) fate.value() : null;
          now = value;
        }
        if (old == null && now != null) {
          added.put(key, now);
        } else if (old != null && now == null) {
          removed.put(key, old);
        } else if (old != null && !Objects.equals(old, now)) {
          changed.put(key, new ValueChange<>(old, now));
        }
      }
    }
    return new MapDiff<>(from, to, added, removed, changed);
  }
}
