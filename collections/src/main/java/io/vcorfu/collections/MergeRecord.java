package io.vcorfu.collections;

import java.util.Objects;

/**
 * One merge into a {@link CSMRMap} (see {@link CSMRMap#merges()}): the map merged from, the version
 * of it merged, and the target's version that holds the merge (its commit). The record is written
 * to the target's layout stream in the merge's own transaction, so the map's history names both
 * parents of that version: the target's previous version and {@code source} as of {@code
 * sourceVersion}. A later merge between the same two maps starts from it (see {@link MapMerge}).
 *
 * @param source the name of the map merged from
 * @param sourceVersion the global address of the source's state that was merged
 * @param targetVersion the global address of the merge's commit in the target
 */
public record MergeRecord(String source, long sourceVersion, long targetVersion) {
  public MergeRecord {
    Objects.requireNonNull(source, "source");
  }
}
