package io.vcorfu.collections;

import java.util.Map;

/**
 * One bucket of a {@link CSMRMap} as the map uses it: a replicated map of its own ({@link SMRMap})
 * or, for a fork, the fork's own updates over its parent's bucket ({@link ForkBucket}).
 */
interface Bucket<K, V> extends SnapshotMap<K, V> {
  /** Maps {@code key} to {@code value} without reading (see {@link SMRMap#fastPut}). */
  void fastPut(K key, V value);

  /** Sets fields of the record at {@code key} (see {@link SMRMap#fastUpdateFields}). */
  void fastUpdateFields(K key, Map<?, ?> fields);
}
