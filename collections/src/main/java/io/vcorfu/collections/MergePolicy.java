package io.vcorfu.collections;

/**
 * How {@link CSMRMap#merge(CSMRMap, MergePolicy)} settles a conflict: a key both sides changed
 * since their common base, to different values (a removal is a change; see {@link MapMerge}).
 */
public enum MergePolicy {
  /** The source's value (or its removal) wins. */
  SOURCE_WINS,
  /** The target keeps its value (or its removal). */
  TARGET_WINS,
  /**
   * The merge fails with {@link MergeConflictException} listing every conflicting key, and writes
   * nothing: the default of {@link CSMRMap#merge(CSMRMap)}.
   */
  FAIL
}
