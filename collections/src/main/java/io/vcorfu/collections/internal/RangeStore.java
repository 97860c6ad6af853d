package io.vcorfu.collections.internal;

import java.util.Iterator;
import java.util.Map;

/**
 * The primitive operations a replicated sorted map offers to its {@link RangeNavigableMap}s. Each
 * call is atomic: it reads (or changes) one consistent version of the map. Keys and values are
 * never null here; the views check that first.
 */
public interface RangeStore<K extends Comparable<? super K>, V> {
  V get(K key);

  boolean containsKey(K key);

  /** The entry with the lowest key in {@code range}, or null. */
  Map.Entry<K, V> first(KeyRange<K> range);

  /** The entry with the highest key in {@code range}, or null. */
  Map.Entry<K, V> last(KeyRange<K> range);

  int count(KeyRange<K> range);

  /** The entries of {@code range} in key order, all from one version; immutable entries. */
  Iterator<Map.Entry<K, V>> entries(KeyRange<K> range, boolean descending);

  /** Maps {@code key} to {@code value}; returns the previous value or null. */
  V put(K key, V value);

  /** Removes {@code key}; returns its value or null. */
  V remove(K key);

  /**
   * Removes and returns the lowest (or, with {@code last}, highest) entry of {@code range}, or
   * null.
   */
  Map.Entry<K, V> poll(KeyRange<K> range, boolean last);

  /** Removes every key of {@code range}. */
  void clear(KeyRange<K> range);
}
