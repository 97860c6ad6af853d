package io.vcorfu.collections;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The key, value and entry views of a replicated map. Size and membership ask the map; removal
 * writes through. Each iterator walks the one version {@link SMRMap#snapshot()} returned when it
 * was created, so it never sees a half-applied change and never throws {@link
 * java.util.ConcurrentModificationException}; its {@code remove} removes the last key it returned
 * from the map.
 */
final class MapViews {
  private MapViews() {}

  /** Iterates one version of {@code map}; {@code remove} removes the last key from the map. */
  private abstract static class VersionIterator<K, V, T> implements Iterator<T> {
    private final SMRMap<K, V> map;
    private final Iterator<Map.Entry<K, V>> entries;
    private Map.Entry<K, V> last;

    VersionIterator(SMRMap<K, V> map) {
      this.map = map;
      this.entries = map.snapshot().entrySet().iterator();
    }

    abstract T project(SMRMap<K, V> map, Map.Entry<K, V> e);

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
      return project(map, last);
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
    private final SMRMap<K, V> map;

    Keys(SMRMap<K, V> map) {
      this.map = map;
    }

    @Override
    public Iterator<K> iterator() {
      return new VersionIterator<K, V, K>(map) {
        @Override
        K project(SMRMap<K, V> m, Map.Entry<K, V> e) {
          return e.getKey();
        }
      };
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
    private final SMRMap<K, V> map;

    Values(SMRMap<K, V> map) {
      this.map = map;
    }

    @Override
    public Iterator<V> iterator() {
      return new VersionIterator<K, V, V>(map) {
        @Override
        V project(SMRMap<K, V> m, Map.Entry<K, V> e) {
          return e.getValue();
        }
      };
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
    private final SMRMap<K, V> map;

    Entries(SMRMap<K, V> map) {
      this.map = map;
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
      return new VersionIterator<K, V, Map.Entry<K, V>>(map) {
        @Override
        Map.Entry<K, V> project(SMRMap<K, V> m, Map.Entry<K, V> e) {
          return new WriteThroughEntry<>(m, e.getKey(), e.getValue());
        }
      };
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

  /** An entry of one version whose {@code setValue} puts the new value into the map. */
  static final class WriteThroughEntry<K, V> extends AbstractMap.SimpleEntry<K, V> {
    private final transient SMRMap<K, V> map;

    WriteThroughEntry(SMRMap<K, V> map, K key, V value) {
      super(key, value);
      this.map = map;
    }

    /** Puts {@code value} for this entry's key; returns the value this entry held. */
    @Override
    public V setValue(V value) {
      map.put(getKey(), Objects.requireNonNull(value, "value"));
      return super.setValue(value);
    }
  }
}
