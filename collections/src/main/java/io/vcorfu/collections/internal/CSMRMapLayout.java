package io.vcorfu.collections.internal;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.MutatorAccessor;

/**
 * The replicated metadata of one {@code CSMRMap}: its bucket count, fixed by the first creation
 * that reaches the log. Opened as an object on the map's metadata stream.
 */
public class CSMRMapLayout {
  /** The bucket count; 0 until the map is created. */
  private int buckets;

  /** For the runtime: layouts are opened through a runtime. */
  public CSMRMapLayout() {}

  /** The bucket count, or 0 when the map was never created. */
  @Accessor
  public int buckets() {
    return buckets;
  }

  /**
   * Creates the map with {@code requested} buckets unless an earlier update in the log already did;
   * returns the bucket count in force after this update (the earlier one, if any).
   */
  @MutatorAccessor
  public int create(int requested) {
    if (buckets == 0 && requested > 0) {
      buckets = requested;
    }
    return buckets;
  }
}
