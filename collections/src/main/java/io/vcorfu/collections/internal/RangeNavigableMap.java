package io.vcorfu.collections.internal;

import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;

/**
 * A {@link NavigableMap} over the keys of one {@link KeyRange} of a {@link RangeStore}, in
 * ascending or descending order: the whole map, or a view made by {@code subMap}, {@code headMap},
 * {@code tailMap} or {@code descendingMap}. Follows {@link java.util.TreeMap}'s views: changes
 * write through to the store, a key outside the range is refused with {@link
 * IllegalArgumentException} by {@code put} and ignored by reads, and sub-views must lie inside the
 * range. Every call reads one consistent version of the store; an iterator walks the version it
 * started on (it never throws {@link java.util.ConcurrentModificationException}) and its {@code
 * remove} and its entries' {@code setValue} write through. Null keys and values are refused with
 * {@link NullPointerException}.
 *
 * <p>Thread-safe when the store is.
 */
public final class RangeNavigableMap<K extends Comparable<? super K>, V>
    implements NavigableMap<K, V> {
  private final RangeStore<K, V> store;
  private final KeyRange<K> range;
  private final boolean descending;

  public RangeNavigableMap(RangeStore<K, V> store, KeyRange<K> range, boolean descending) {
    this.store = store;
    this.range = range;
    this.descending = descending;
  }

  /** The whole store, ascending. */
  public static <K extends Comparable<? super K>, V> RangeNavigableMap<K, V> of(
      RangeStore<K, V> store) {
    return new RangeNavigableMap<>(store, KeyRange.all(), false);
  }

  @SuppressWarnings("unchecked")
  private K key(Object key) {
    Objects.requireNonNull(key, "this map does not hold null keys");
    Comparable<?> c = (Comparable<?>) key;
    return (K) c;
  }

  private static <K> K keyOf(Map.Entry<K, ?> e) {
    return e == null ? null : e.getKey();
  }

  private static <K> K keyOrThrow(Map.Entry<K, ?> e) {
    if (e == null) {
      throw new NoSuchElementException("the map is empty");
    }
    return e.getKey();
  }

  @Override
  public int size() {
    return store.count(range);
  }

  @Override
  public boolean isEmpty() {
    return store.first(range) == null;
  }

  @Override
  public boolean containsKey(Object key) {
    K k = key(key);
    return range.contains(k) && store.containsKey(k);
  }

  @Override
  public boolean containsValue(Object value) {
    Objects.requireNonNull(value, "this map does not hold null values");
    for (Iterator<Map.Entry<K, V>> it = store.entries(range, false); it.hasNext(); ) {
      if (value.equals(it.next().getValue())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public V get(Object key) {
    K k = key(key);
    return range.contains(k) ? store.get(k) : null;
  }

  @Override
  public V put(K key, V value) {
    Objects.requireNonNull(key, "this map does not hold null keys");
    Objects.requireNonNull(value, "this map does not hold null values");
    if (!range.contains(key)) {
      throw new IllegalArgumentException("key " + key + " lies outside this view's range " + range);
    }
    return store.put(key, value);
  }

  @Override
  public V remove(Object key) {
    K k = key(key);
    return range.contains(k) ? store.remove(k) : null;
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> m) {
    for (Map.Entry<? extends K, ? extends V> e : m.entrySet()) {
      put(e.getKey(), e.getValue());
    }
  }

  @Override
  public void clear() {
    store.clear(range);
  }

  @Override
  public Comparator<? super K> comparator() {
    return descending ? Collections.reverseOrder() : null;
  }

  @Override
  public Map.Entry<K, V> firstEntry() {
    return descending ? store.last(range) : store.first(range);
  }

  @Override
  public Map.Entry<K, V> lastEntry() {
    return descending ? store.first(range) : store.last(range);
  }

  @Override
  public K firstKey() {
    return keyOrThrow(firstEntry());
  }

  @Override
  public K lastKey() {
    return keyOrThrow(lastEntry());
  }

  @Override
  public Map.Entry<K, V> pollFirstEntry() {
    return store.poll(range, descending);
  }

  @Override
  public Map.Entry<K, V> pollLastEntry() {
    return store.poll(range, !descending);
  }

  /**
   * The greatest entry below (or at, when {@code inclusive}) {@code key} in ascending key order.
   */
  private Map.Entry<K, V> below(Object key, boolean inclusive) {
    return store.last(range.capHigh(key(key), inclusive));
  }

  /** The least entry above (or at, when {@code inclusive}) {@code key} in ascending key order. */
  private Map.Entry<K, V> above(Object key, boolean inclusive) {
    return store.first(range.capLow(key(key), inclusive));
  }

  @Override
  public Map.Entry<K, V> lowerEntry(K key) {
    return descending ? above(key, false) : below(key, false);
  }

  @Override
  public K lowerKey(K key) {
    return keyOf(lowerEntry(key));
  }

  @Override
  public Map.Entry<K, V> floorEntry(K key) {
    return descending ? above(key, true) : below(key, true);
  }

  @Override
  public K floorKey(K key) {
    return keyOf(floorEntry(key));
  }

  @Override
  public Map.Entry<K, V> ceilingEntry(K key) {
    return descending ? below(key, true) : above(key, true);
  }

  @Override
  public K ceilingKey(K key) {
    return keyOf(ceilingEntry(key));
  }

  @Override
  public Map.Entry<K, V> higherEntry(K key) {
    return descending ? below(key, false) : above(key, false);
  }

  @Override
  public K higherKey(K key) {
    return keyOf(higherEntry(key));
  }

  @Override
  public NavigableMap<K, V> descendingMap() {
    return new RangeNavigableMap<>(store, range, !descending);
  }

  @Override
  public NavigableSet<K> navigableKeySet() {
    return new RangeKeySet<>(this);
  }

  @Override
  public NavigableSet<K> descendingKeySet() {
    return descendingMap().navigableKeySet();
  }

  @Override
  public Set<K> keySet() {
    return navigableKeySet();
  }

  private KeyRange<K> narrowed(K lo, boolean loInclusive, K hi, boolean hiInclusive) {
    if (lo != null && !range.admitsBound(lo, loInclusive)) {
      throw new IllegalArgumentException(
          "bound " + lo + " lies outside this view's range " + range);
    }
    if (hi != null && !range.admitsBound(hi, hiInclusive)) {
      throw new IllegalArgumentException(
          "bound " + hi + " lies outside this view's range " + range);
    }
    return new KeyRange<>(
        lo == null ? range.lo() : lo,
        lo == null ? range.loInclusive() : loInclusive,
        hi == null ? range.hi() : hi,
        hi == null ? range.hiInclusive() : hiInclusive);
  }

  @Override
  public NavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
    Objects.requireNonNull(fromKey, "fromKey");
    Objects.requireNonNull(toKey, "toKey");
    int order = descending ? toKey.compareTo(fromKey) : fromKey.compareTo(toKey);
    if (order > 0) {
      throw new IllegalArgumentException(
          "fromKey " + fromKey + " comes after toKey " + toKey + " in this map's order");
    }
    KeyRange<K> r =
        descending
            ? narrowed(toKey, toInclusive, fromKey, fromInclusive)
            : narrowed(fromKey, fromInclusive, toKey, toInclusive);
    return new RangeNavigableMap<>(store, r, descending);
  }

  @Override
  public NavigableMap<K, V> headMap(K toKey, boolean inclusive) {
    Objects.requireNonNull(toKey, "toKey");
    KeyRange<K> r =
        descending
            ? narrowed(toKey, inclusive, null, false)
            : narrowed(null, false, toKey, inclusive);
    return new RangeNavigableMap<>(store, r, descending);
  }

  @Override
  public NavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
    Objects.requireNonNull(fromKey, "fromKey");
    KeyRange<K> r =
        descending
            ? narrowed(null, false, fromKey, inclusive)
            : narrowed(fromKey, inclusive, null, false);
    return new RangeNavigableMap<>(store, r, descending);
  }

  @Override
  public SortedMap<K, V> subMap(K fromKey, K toKey) {
    return subMap(fromKey, true, toKey, false);
  }

  @Override
  public SortedMap<K, V> headMap(K toKey) {
    return headMap(toKey, false);
  }

  @Override
  public SortedMap<K, V> tailMap(K fromKey) {
    return tailMap(fromKey, true);
  }

  /** Entries of one consistent version, in this view's order; remove and setValue write through. */
  Iterator<Map.Entry<K, V>> entryIterator() {
    return RangeEntries.iterator(store, store.entries(range, descending));
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return RangeEntries.entrySet(this);
  }

  @Override
  public Collection<V> values() {
    return RangeEntries.values(this);
  }

  /** Equal to any {@link Map} with the same mappings; reads this map's entries from one version. */
  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof Map<?, ?> m)) {
      return false;
    }
    int n = 0;
    try {
      for (Iterator<Map.Entry<K, V>> it = store.entries(range, false); it.hasNext(); n++) {
        Map.Entry<K, V> e = it.next();
        if (!e.getValue().equals(m.get(e.getKey()))) {
          return false;
        }
      }
    } catch (ClassCastException | NullPointerException e) {
      return false;
    }
    return n == m.size();
  }

  /** The sum of the entries' hash codes, as {@link Map#hashCode()} specifies, from one version. */
  @Override
  public int hashCode() {
    int h = 0;
    for (Iterator<Map.Entry<K, V>> it = store.entries(range, false); it.hasNext(); ) {
      Map.Entry<K, V> e = it.next();
      h += e.getKey().hashCode() ^ e.getValue().hashCode();
    }
    return h;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{");
    for (Iterator<Map.Entry<K, V>> it = store.entries(range, descending); it.hasNext(); ) {
      Map.Entry<K, V> e = it.next();
      sb.append(e.getKey()).append('=').append(e.getValue());
      if (it.hasNext()) {
        sb.append(", ");
      }
    }
    return sb.append('}').toString();
  }
}
