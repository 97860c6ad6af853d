package io.vcorfu.collections.internal;

import java.util.Objects;

/**
 * An interval of keys in their natural order: an optional lower and an optional upper bound, each
 * inclusive or exclusive. A null bound means unbounded on that side (keys are never null).
 * Immutable.
 */
public record KeyRange<K extends Comparable<? super K>>(
    K lo, boolean loInclusive, K hi, boolean hiInclusive) {
  private static final KeyRange<?> ALL = new KeyRange<>(null, false, null, false);

  /** Every key. */
  @SuppressWarnings("unchecked")
  public static <K extends Comparable<? super K>> KeyRange<K> all() {
    return (KeyRange<K>) ALL;
  }

  public boolean hasLo() {
    return lo != null;
  }

  public boolean hasHi() {
    return hi != null;
  }

  /** True when {@code key} lies below the lower bound. */
  public boolean tooLow(K key) {
    if (lo == null) {
      return false;
    }
    int c = key.compareTo(lo);
    return c < 0 || (c == 0 && !loInclusive);
  }

  /** True when {@code key} lies above the upper bound. */
  public boolean tooHigh(K key) {
    if (hi == null) {
      return false;
    }
    int c = key.compareTo(hi);
    return c > 0 || (c == 0 && !hiInclusive);
  }

  /** True when {@code key} lies inside the range. */
  public boolean contains(K key) {
    return !tooLow(key) && !tooHigh(key);
  }

  /**
   * True when {@code key} may serve as a bound of a sub-range: inside the range, or, when {@code
   * inclusive} is false, equal to one of this range's bounds (the rule {@link java.util.TreeMap}'s
   * views follow).
   */
  public boolean admitsBound(K key, boolean inclusive) {
    if (inclusive) {
      return contains(key);
    }
    boolean aboveLo = lo == null || key.compareTo(lo) >= 0;
    boolean belowHi = hi == null || key.compareTo(hi) <= 0;
    return aboveLo && belowHi;
  }

  /** The keys of this range that are also at most (or below, when not inclusive) {@code key}. */
  public KeyRange<K> capHigh(K key, boolean inclusive) {
    Objects.requireNonNull(key, "key");
    if (hi != null) {
      int c = key.compareTo(hi);
      if (c > 0) {
        return this;
      }
      if (c == 0) {
        return new KeyRange<>(lo, loInclusive, hi, hiInclusive && inclusive);
      }
    }
    return new KeyRange<>(lo, loInclusive, key, inclusive);
  }

  /** The keys of this range that are also at least (or above, when not inclusive) {@code key}. */
  public KeyRange<K> capLow(K key, boolean inclusive) {
    Objects.requireNonNull(key, "key");
    if (lo != null) {
      int c = key.compareTo(lo);
      if (c < 0) {
        return this;
      }
      if (c == 0) {
        return new KeyRange<>(lo, loInclusive && inclusive, hi, hiInclusive);
      }
    }
    return new KeyRange<>(key, inclusive, hi, hiInclusive);
  }

  /** True when no key can lie in the range (judged from the bounds alone). */
  public boolean isEmptyInterval() {
    if (lo == null || hi == null) {
      return false;
    }
    int c = lo.compareTo(hi);
    return c > 0 || (c == 0 && !(loInclusive && hiInclusive));
  }

  @Override
  public String toString() {
    return (lo == null ? "(-inf" : (loInclusive ? "[" : "(") + lo)
        + ", "
        + (hi == null ? "+inf)" : hi + (hiInclusive ? "]" : ")"));
  }
}
