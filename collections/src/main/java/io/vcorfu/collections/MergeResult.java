package io.vcorfu.collections;

import java.util.Objects;
import java.util.Set;

/**
 * What a merge did (see {@link CSMRMap#merge(CSMRMap)}).
 *
 * @param source the name of the map merged from
 * @param sourceVersion the global address of the source's state that was merged
 * @param baseMap the name of the map holding the common base (the source or the target when the
 *     base is an earlier merge between them, else the map where their fork chains meet)
 * @param baseVersion the global address of the common base in {@code baseMap} (-1: empty)
 * @param commit the global address of the merge's commit in the target (its new version)
 * @param applied how the target changed: {@code added}, {@code removed} and {@code changed} keys
 *     with the target's values before and after the merge; {@code from} is {@code commit - 1} and
 *     {@code to} the commit (it equals the target's {@code diff(commit - 1, commit)})
 * @param conflicts the keys both sides changed to different values, settled by the resolver
 */
public record MergeResult<K, V>(
    String source,
    long sourceVersion,
    String baseMap,
    long baseVersion,
    long commit,
    MapDiff<K, V> applied,
    Set<K> conflicts) {
  public MergeResult {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(baseMap, "baseMap");
    Objects.requireNonNull(applied, "applied");
    conflicts = Set.copyOf(conflicts);
  }
}
