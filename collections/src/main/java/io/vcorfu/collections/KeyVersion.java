package io.vcorfu.collections;

import java.util.Map;
import java.util.Objects;

/**
 * One version of a map's key: the log entry that made it and what it left the key as. What {@link
 * CSMRMap#history} lists, newest first.
 *
 * @param globalAddress the entry's global address
 * @param timeMillis when its writer made it, by the writer's clock (-1 when the entry has no time)
 * @param kind {@link MapUpdate.Kind#PUT} (the key maps to {@code value}), {@link
 *     MapUpdate.Kind#REMOVE} or {@link MapUpdate.Kind#CLEAR} (the key is absent), or {@link
 *     MapUpdate.Kind#UPDATE_FIELDS} ({@code fields} were set in the key's record, if it existed)
 * @param value the value for {@link MapUpdate.Kind#PUT}, else null
 * @param fields the fields for {@link MapUpdate.Kind#UPDATE_FIELDS}, else null
 */
public record KeyVersion<V>(
    long globalAddress, long timeMillis, MapUpdate.Kind kind, V value, Map<Object, Object> fields) {

  /** Whether the key was absent after this version. */
  public boolean removed() {
    return kind == MapUpdate.Kind.REMOVE || kind == MapUpdate.Kind.CLEAR;
  }

  /**
   * The version of {@code key} that {@code u} made, or null when it did not change the key: its
   * last change of the key (a transaction may change a key twice), a clear of the key's bucket
   * counting as a removal.
   */
  static <K, V> KeyVersion<V> of(MapUpdate<K, V> u, Object key) {
    if (u == null) {
      return null;
    }
    KeyVersion<V> last = null;
    for (MapUpdate.Change<K, V> c : u.changes()) {
      if (c.kind() == MapUpdate.Kind.CLEAR || Objects.equals(c.key(), key)) {
        last = new KeyVersion<>(u.globalAddress(), u.timeMillis(), c.kind(), c.value(), c.fields());
      }
    }
    return last;
  }
}
