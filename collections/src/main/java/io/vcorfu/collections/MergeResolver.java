package io.vcorfu.collections;

import java.util.Optional;

/**
 * Settles a merge conflict of one key (see {@link CSMRMap#merge(CSMRMap, MergeResolver)}): given
 * the key's value in the common base, in the target and in the source (each empty when the key is
 * absent there), returns the merged value, or empty to remove the key from the target.
 *
 * <p>Called only for keys both sides changed to different values, inside the merge's transaction,
 * and again for every attempt when the transaction is retried: it must be a pure function of its
 * arguments (no writes, no side effects).
 */
@FunctionalInterface
public interface MergeResolver<K, V> {
  Optional<V> resolve(K key, Optional<V> base, Optional<V> target, Optional<V> source);

  /** The resolver of {@code policy}; null for {@link MergePolicy#FAIL}, which resolves nothing. */
  static <K, V> MergeResolver<K, V> of(MergePolicy policy) {
    return switch (policy) {
      case SOURCE_WINS -> (key, base, target, source) -> source;
      case TARGET_WINS -> (key, base, target, source) -> target;
      case FAIL -> null;
    };
  }
}
