package io.vcorfu.collections.internal;

import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.SortedSet;

/**
 * The keys of a {@link RangeNavigableMap} as a {@link NavigableSet}, like {@link
 * java.util.TreeMap#navigableKeySet()}: removals write through to the map, {@code add} is not
 * supported, and every call reads one consistent version.
 */
final class RangeKeySet<K extends Comparable<? super K>> extends AbstractSet<K>
    implements NavigableSet<K> {
  private final RangeNavigableMap<K, ?> map;

  RangeKeySet(RangeNavigableMap<K, ?> map) {
    this.map = map;
  }

  private static <K> K keyOf(Map.Entry<K, ?> e) {
    return e == null ? null : e.getKey();
  }

  @Override
  public Iterator<K> iterator() {
    return RangeEntries.mapped(map.entryIterator(), RangeKeySet::<K>keyOf);
  }

  @Override
  public Iterator<K> descendingIterator() {
    return descendingSet().iterator();
  }

  @Override
  public int size() {
    return map.size();
  }

  @Override
  public boolean isEmpty() {
    return map.isEmpty();
  }

  @Override
  public boolean contains(Object o) {
    return map.containsKey(o);
  }

  @Override
  public boolean remove(Object o) {
    return map.remove(o) != null;
  }

  @Override
  public void clear() {
    map.clear();
  }

  @Override
  public Comparator<? super K> comparator() {
    return map.comparator();
  }

  @Override
  public K first() {
    return map.firstKey();
  }

  @Override
  public K last() {
    return map.lastKey();
  }

  @Override
  public K lower(K k) {
    return map.lowerKey(k);
  }

  @Override
  public K floor(K k) {
    return map.floorKey(k);
  }

  @Override
  public K ceiling(K k) {
    return map.ceilingKey(k);
  }

  @Override
  public K higher(K k) {
    return map.higherKey(k);
  }

  @Override
  public K pollFirst() {
    return keyOf(map.pollFirstEntry());
  }

  @Override
  public K pollLast() {
    return keyOf(map.pollLastEntry());
  }

  @Override
  public NavigableSet<K> descendingSet() {
    return new RangeKeySet<>((RangeNavigableMap<K, ?>) map.descendingMap());
  }

  @Override
  public NavigableSet<K> subSet(K from, boolean fromInclusive, K to, boolean toInclusive) {
    return new RangeKeySet<>(
        (RangeNavigableMap<K, ?>) map.subMap(from, fromInclusive, to, toInclusive));
  }

  @Override
  public NavigableSet<K> headSet(K to, boolean inclusive) {
    return new RangeKeySet<>((RangeNavigableMap<K, ?>) map.headMap(to, inclusive));
  }

  @Override
  public NavigableSet<K> tailSet(K from, boolean inclusive) {
    return new RangeKeySet<>((RangeNavigableMap<K, ?>) map.tailMap(from, inclusive));
  }

  @Override
  public SortedSet<K> subSet(K from, K to) {
    return subSet(from, true, to, false);
  }

  @Override
  public SortedSet<K> headSet(K to) {
    return headSet(to, false);
  }

  @Override
  public SortedSet<K> tailSet(K from) {
    return tailSet(from, true);
  }

  /** Equal to any {@link Set} with the same keys; reads this set's keys from one version. */
  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof Set<?> s)) {
      return false;
    }
    List<K> keys = new ArrayList<>();
    iterator().forEachRemaining(keys::add);
    try {
      return keys.size() == s.size() && s.containsAll(keys);
    } catch (ClassCastException | NullPointerException e) {
      return false;
    }
  }

  @Override
  public int hashCode() {
    int h = 0;
    for (K k : this) {
      h += k.hashCode();
    }
    return h;
  }
}
