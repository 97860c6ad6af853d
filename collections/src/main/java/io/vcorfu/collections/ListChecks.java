package io.vcorfu.collections;

import java.util.ArrayList;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The checks {@link SMRList} makes before it reads or changes anything: index bounds, refused
 * nulls, an element present, and the version a conditional write was made for. Each throws the
 * exception the list's contract names and changes nothing.
 */
final class ListChecks {
  private ListChecks() {}

  /**
   * Fails with {@link ConcurrentModificationException} unless the list has seen exactly {@code
   * version} changes ({@code changes}): a write made for one version applies only to that version.
   */
  static void requireVersion(long changes, long version) {
    if (changes != version) {
      throw new ConcurrentModificationException(
          "the list changed after the version this write was made for: "
              + "it has seen "
              + changes
              + " changes, the write expected "
              + version);
    }
  }

  static int checkIndex(int index, int bound) {
    if (index < 0 || index >= bound) {
      throw new IndexOutOfBoundsException(
          "index " + index + " is outside 0.." + (bound - 1) + " for this list");
    }
    return index;
  }

  static <T> T nonEmpty(T e) {
    if (e == null) {
      throw new NoSuchElementException("the list is empty");
    }
    return e;
  }

  static <T> List<T> nonNullCopy(Collection<? extends T> c) {
    List<T> copy = new ArrayList<>(Objects.requireNonNull(c, "c"));
    requireNoNulls(copy);
    return copy;
  }

  static void requireNoNulls(List<?> c) {
    for (Object e : c) {
      Objects.requireNonNull(e, "SMRList refuses null elements");
    }
  }
}
