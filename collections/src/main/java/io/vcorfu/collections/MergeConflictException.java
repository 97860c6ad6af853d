package io.vcorfu.collections;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A merge with {@link MergePolicy#FAIL} found keys both sides changed, to different values, since
 * their common base; nothing was written. {@link #keys()} lists every one of them.
 */
public final class MergeConflictException extends RuntimeException {
  private final String target;
  private final String source;
  private final List<Object> keys;

  public MergeConflictException(String target, String source, Set<?> keys) {
    super(message(target, source, keys));
    this.target = target;
    this.source = source;
    this.keys = List.copyOf(keys);
  }

  private static String message(String target, String source, Set<?> keys) {
    TreeSet<String> sorted = new TreeSet<>();
    keys.forEach(k -> sorted.add(String.valueOf(k)));
    return "merge of map '"
        + source
        + "' into '"
        + target
        + "' conflicts on "
        + (sorted.size() == 1 ? "key " : sorted.size() + " keys ")
        + String.join(", ", sorted)
        + " (changed on both sides since their common base); nothing written";
  }

  /** The target map's name. */
  public String target() {
    return target;
  }

  /** The source map's name. */
  public String source() {
    return source;
  }

  /** Every conflicting key. */
  public List<Object> keys() {
    return keys;
  }
}
