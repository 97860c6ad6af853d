package io.vcorfu.collections;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * The key, value and entry views of a {@link CSMRMap}. Size and membership ask the map (a
 * transaction over the buckets, or one bucket for a key); removal writes through. Each iterator
 * walks the snapshot {@link CSMRMap#snapshot()} returned when it was created; its {@code remove}
 * removes the last key it returned from the map.
 */
final class CSMRMapViews {
  private CSMRMapViews() {}

  /** Iterates one snapshot of {@code map}, projecting each entry; {@code remove} writes through. */
  private static final class SnapshotIterator<K, V, T> implements Iterator<T> {
    private final CSMRMap<K, V> map;
    private final Iterator<Map.Entry<K, V>> entries;
    private final BiFunction<CSMRMap<K, V>, Map.Entry<K, V>, T> project;
    private Map.Entry<K, V> last;

    SnapshotIterator(CSMRMap<K, V> map, BiFunction<CSMRMap<K, V>, Map.Entry<K, V>, T> project) {
      this.map = map;
      this.entries = map.snapshot().entrySet().iterator();
      this.project = project;
    }

    @Override
    public boolean hasNext() {
      return entries.hasNext();
    }

    @Override
    public T next() {
      if (!entries.hasNext()) {
        throw new NoSuchElementException();
      }
      last = entries.next();
      return project.apply(map, last);
    }

    @Override
    public void remove() {
      if (last == null) {
        throw new IllegalStateException("next() was not called, or remove() was already called for this element");
      }
      map.remove(last.getKey());
      last = null;
    }
  }

  static final class Keys<K, V> extends AbstractSet<K> {
    private final CSMRMap<K, V> map;

    Keys(CSMRMap<K, V> map) {
      this.map = map;
    }

    @Override
    public Iterator<K> iterator() {
      return new SnapshotIterator<>(map, (m, e) -> e.getKey());
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
      return o != null && map.containsKey(o);
    }

    @Override
    public boolean remove(Object o) {
      return o != null && map.remove(o) != null;
    }

    @Override
    public void clear() {
      map.clear();
    }
  }

  static final class Values<K, V> extends AbstractCollection<V> {
    private final CSMRMap<K, V> map;

    Values(CSMRMap<K, V> map) {
      this.map = map;
    }

    @Override
    public Iterator<V> iterator() {
      return new SnapshotIterator<>(map, (m, e) -> e.getValue());
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
      return o != null && map.containsValue(o);
    }

    @Override
    public void clear() {
      map.clear();
    }
  }

  static final class Entries<K, V> extends AbstractSet<Map.Entry<K, V>> {
    private final CSMRMap<K, V> map;

    Entries(CSMRMap<K, V> map) {
      this.map = map;
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
      return new SnapshotIterator<>(map, (m, e) -> new Entry<>(m, e.getKey(), e.getValue()));
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
      if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null) {
        return false;
      }
      Object v = map.get(e.getKey());
      return v != null && v.equals(e.getValue());
    }

    @Override
    public boolean remove(Object o) {
      if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null || e.getValue() == null) {
        return false;
      }
      return map.remove(e.getKey(), e.getValue());
    }

    @Override
    public void clear() {
      map.clear();
    }
  }

  /** An entry of one snapshot whose {@code setValue} puts the new value into the map. */
  private static final class Entry<K, V> extends AbstractMap.SimpleEntry<K, V> {
    private final transient CSMRMap<K, V> map;

    Entry(CSMRMap<K, V> map, K key, V value) {
      super(key, value);
      this.map = map;
    }

    @Override
    public V setValue(V value) {
      map.put(getKey(), Objects.requireNonNull(value, "value"));
      return super.setValue(value);
    }
  }
}
