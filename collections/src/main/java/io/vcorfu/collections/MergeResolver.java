package io.vcorfu.collections;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

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

  /**
   * The default for record values (maps of field names to values, as {@link
   * CSMRMap#fastUpdateFields} writes): merges the two records field by field, three-way against the
   * base's record (none: no fields). A field only one side changed (set, changed or dropped) takes
   * that side's; a field both changed to different values takes {@code fallback}'s side. A key
   * removed on either side, or a value that is not a record, goes whole to {@code fallback}'s side.
   *
   * @param fallback {@link MergePolicy#SOURCE_WINS} or {@link MergePolicy#TARGET_WINS}
   */
  static <K, V> MergeResolver<K, V> byField(MergePolicy fallback) {
    if (fallback == MergePolicy.FAIL) {
      throw new IllegalArgumentException(
          "a field merge falls back to SOURCE_WINS or TARGET_WINS, not FAIL");
    }
    boolean sourceWins = fallback == MergePolicy.SOURCE_WINS;
    return (key, base, target, source) -> {
      if (!(target.orElse(null) instanceof Map<?, ?> mine)
          || !(source.orElse(null) instanceof Map<?, ?> theirs)
          || !(base.<Object>map(v -> v).orElse(Map.of()) instanceof Map<?, ?> old)) {
        return sourceWins ? source : target;
      }
      Map<Object, Object> merged = new LinkedHashMap<>(mine);
      Set<Object> fields = new HashSet<>(old.keySet());
      fields.addAll(mine.keySet());
      fields.addAll(theirs.keySet());
      for (Object field : fields) {
        Object b = old.get(field);
        Object t = mine.get(field);
        Object s = theirs.get(field);
        boolean take = !Objects.equals(s, b) && (Objects.equals(t, b) || sourceWins);
        if (take && s == null) {
          merged.remove(field);
        } else if (take) {
          merged.put(field, s);
        }
      }
      @SuppressWarnings("unchecked")
      V record = (V) merged;
      return Optional.of(record);
    };
  }

  /** The resolver of {@code policy}; null for {@link MergePolicy#FAIL}, which resolves nothing. */
  static <K, V> MergeResolver<K, V> of(MergePolicy policy) {
    return switch (policy) {
      case SOURCE_WINS -> (key, base, target, source) -> source;
      case TARGET_WINS -> (key, base, target, source) -> target;
      case FAIL -> null;
    };
  }
}
