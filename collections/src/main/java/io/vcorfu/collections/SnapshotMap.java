package io.vcorfu.collections;

import java.util.Map;

/**
 * A replicated map that can hand out one consistent version of all its entries. {@link MapViews}
 * builds the live key, value and entry views of {@link SMRMap} and {@link CSMRMap} over this.
 */
interface SnapshotMap<K, V> extends Map<K, V> {
  /** Every entry as one immutable map, read at one version; never null. */
  Map<K, V> snapshot();
}
