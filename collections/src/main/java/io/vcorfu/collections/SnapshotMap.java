package io.vcorfu.collections;

import java.util.Map;

/**
 * A replicated map that can hand out one consistent version of all its entries. {@link
 * MapCollections} builds the live key, value and entry views of {@link SMRMap} and {@link CSMRMap}
 * over this.
 */
interface SnapshotMap<K, V> extends Map<K, V> {
  /** Every entry as one immutable map, read at one version; never null. */
  Map<K, V> snapshot();

  /**
   * The {@code Map.equals} of a snapshot map: true when {@code o} is a {@code Map} with the same
   * entries as one version of {@code map}; another snapshot map is compared by one version of its
   * own.
   */
  static boolean sameEntries(SnapshotMap<?, ?> map, Object o) {
    if (o == map) {
      return true;
    }
    if (!(o instanceof Map<?, ?> other)) {
      return false;
    }
    return map.snapshot().equals(other instanceof SnapshotMap<?, ?> s ? s.snapshot() : other);
  }
}
