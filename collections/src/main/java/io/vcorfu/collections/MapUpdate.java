package io.vcorfu.collections;

import io.vcorfu.runtime.ObjectUpdates;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one committed log entry did to a map: the changes of one call, or of a transaction's calls
 * in the order it made them. What {@link CSMRMap#watch} and {@link SMRMap}'s streams deliver.
 *
 * @param globalAddress the entry's global address (resume after it with {@code globalAddress + 1})
 * @param timeMillis when its writer made it, by the writer's clock (-1 when the entry has no time)
 * @param changes the changes, in order
 */
public record MapUpdate<K, V>(long globalAddress, long timeMillis, List<Change<K, V>> changes) {

  /** What a change did. */
  public enum Kind {
    /** {@code key} now maps to {@code value}. */
    PUT,
    /** {@code key} is absent now (it may have been absent before). */
    REMOVE,
    /** The fields in {@code fields} were set in {@code key}'s record, if it exists. */
    UPDATE_FIELDS,
    /** Every key of one bucket was removed (a map's {@code clear} clears each bucket). */
    CLEAR
  }

  /**
   * One change. A change is reported for every committed call, also one that left the map as it was
   * (a remove of an absent key, a put of the value already there).
   *
   * @param kind what it did
   * @param key the key (null for {@link Kind#CLEAR})
   * @param value the new value for {@link Kind#PUT}, else null
   * @param fields the fields set for {@link Kind#UPDATE_FIELDS}, else null
   */
  public record Change<K, V>(Kind kind, K key, V value, Map<Object, Object> fields) {}

  /**
   * This update with only the changes of keys {@code keys} accepts and the clears, or null when
   * none is left (for a watch that leaves such entries out).
   */
  MapUpdate<K, V> only(java.util.function.Predicate<? super K> keys) {
    List<Change<K, V>> kept = new ArrayList<>();
    for (Change<K, V> c : changes) {
      if (c.kind() == Kind.CLEAR || keys.test(c.key())) {
        kept.add(c);
      }
    }
    return kept.isEmpty() ? null : new MapUpdate<>(globalAddress, timeMillis, List.copyOf(kept));
  }

  /** The map changes of {@code u} to keys {@code keys} accepts, and its clears (null: none). */
  static <K, V> MapUpdate<K, V> of(ObjectUpdates u, java.util.function.Predicate<? super K> keys) {
    MapUpdate<K, V> all = of(u);
    return all == null ? null : all.only(keys);
  }

  /** The map changes of {@code u} (null when it holds none: then nothing is delivered for it). */
  @SuppressWarnings("unchecked")
  static <K, V> MapUpdate<K, V> of(ObjectUpdates u) {
    List<Change<K, V>> changes = new ArrayList<>();
    for (ObjectUpdates.Update up : u.updates()) {
      Object[] a = up.args();
      switch (up.methodName()) {
        case "putEntry", "blindPut" ->
            changes.add(new Change<>(Kind.PUT, (K) a[0], (V) a[1], null));
        case "removeEntry" -> changes.add(new Change<>(Kind.REMOVE, (K) a[0], null, null));
        case "blindUpdateFields" ->
            changes.add(
                new Change<>(Kind.UPDATE_FIELDS, (K) a[0], null, (Map<Object, Object>) a[1]));
        case "putEntries" -> {
          for (Map.Entry<?, ?> e : ((Map<?, ?>) a[0]).entrySet()) {
            changes.add(new Change<>(Kind.PUT, (K) e.getKey(), (V) e.getValue(), null));
          }
        }
        case "clear" -> changes.add(new Change<>(Kind.CLEAR, null, null, null));
        default -> {
          // a method of another class sharing the stream: not a map change
        }
      }
    }
    return changes.isEmpty()
        ? null
        : new MapUpdate<>(u.globalAddress(), u.timeMillis(), List.copyOf(changes));
  }
}
