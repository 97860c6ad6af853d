package io.vcorfu.collections.internal;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;

/**
 * The replicated metadata of one {@code CSMRMap}: its bucket count and, for a fork, its base (the
 * parent map's name and the global address the fork was taken at), all fixed by the first creation
 * that reaches the log. Opened as an object on the map's metadata stream.
 */
public class CSMRMapLayout {
  /** The bucket count; 0 until the map is created. */
  private int buckets;

  /** The parent map's name for a fork; null for a map that is not a fork. */
  private String parent;

  /** The version of the parent a fork starts from; -1 for a map that is not a fork. */
  private long base = -1;

  /** The number of merges into this map. */
  private int merges;

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

  /** The parent map's name when the map is a fork, else null. */
  @Accessor
  public String parent() {
    return parent;
  }

  /** The parent's version a fork starts from (meaningful when {@link #parent()} is not null). */
  @Accessor
  public long base() {
    return base;
  }

  /**
   * Creates the map as a fork of {@code parentName} as of global address {@code baseVersion}, with
   * the parent's {@code requested} buckets, unless an earlier update in the log created the map;
   * returns true when this update created it (so of concurrent creations exactly one wins).
   */
  @MutatorAccessor
  public boolean createFork(int requested, String parentName, long baseVersion) {
    if (buckets != 0 || requested <= 0) {
      return false;
    }
    buckets = requested;
    parent = parentName;
    base = baseVersion;
    return true;
  }

  /**
   * Records that the map named {@code source}, as of global address {@code sourceVersion}, was
   * merged into this map, in the merge's own transaction: the record's global address is the
   * merge's commit (read back from the stream's updates). Counts the merges.
   */
  @Mutator
  public void merged(String source, long sourceVersion) {
    merges++;
  }

  /** How many merges into this map were recorded (see {@link #merged}). */
  @Accessor
  public int merges() {
    return merges;
  }
}
