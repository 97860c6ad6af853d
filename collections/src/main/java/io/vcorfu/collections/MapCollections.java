package io.vcorfu.collections;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Function;

/**
 * The key set, value collection and entry set of a replicated map ({@link SMRMap}, {@link
 * CSMRMap}). Size and membership ask the map; removal writes through. Each iterator walks the one
 * version {@link SnapshotMap#snapshot()} returned when it was created, so it never sees a
 * half-applied change and never throws {@link java.util.ConcurrentModificationException}; its
 * {@code remove} removes the last key it returned from the map.
 */
final class MapCollections {
  private MapCollections() {}

  /** Iterates one version of {@code map}, projecting each entry; {@code remove} writes through. */
  private static final class VersionIterator<K, V, T> implements Iterator<T> {
    private final SnapshotMap<K, V> map;
    private final Iterator<Map.Entry<K, V>> entries;
    private final Function<Map.Entry<K, V>, T> project;
    private Map.Entry<K, V> last;

    VersionIterator(SnapshotMap<K, V> map, Function<Map.Entry<K, V>, T> project) {
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
      return project.apply(last);
    }

    @Override
    public void remove() {
      if (last == null) {
        throw new IllegalStateException(
            "next() was not called, or remove() was already called for this element");
      }
      map.remove(last.getKey());
      last = null;
    }
  }

  /** A live set view of {@code map} whose iterator projects each entry of one version. */
  private abstract static class SetView<K, V, T> extends AbstractSet<T> {
    final SnapshotMap<K, V> map;

    SetView(SnapshotMap<K, V> map) {
      this.map = map;
    }

    abstract T project(Map.Entry<K, V> e);

    @Override
    public Iterator<T> iterator() {
      return new VersionIterator<>(map, this::project);
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
    public void clear() {
      map.clear();
    }
  }

  static final class Keys<K, V> extends SetView<K, V, K> {
    Keys(SnapshotMap<K, V> map) {
      super(map);
    }

    @Override
    K project(Map.Entry<K, V> e) {
      return e.getKey();
    }

    @Override
    public boolean contains(Object o) {
      return o != null && map.containsKey(o);
    }

    @Override
    public boolean remove(Object o) {
      return o != null && map.remove(o) != null;
    }
  }

  static final class Entries<K, V> extends SetView<K, V, Map.Entry<K, V>> {
    Entries(SnapshotMap<K, V> map) {
      super(map);
    }

    @Override
    Map.Entry<K, V> project(Map.Entry<K, V> e) {
      return new WriteThroughEntry<>(map, e.getKey(), e.getValue());
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
  }

  /** The values; not a set, so it keeps {@link AbstractCollection}'s identity equality. */
  static final class Values<K, V> extends AbstractCollection<V> {
    private final SnapshotMap<K, V> map;

    Values(SnapshotMap<K, V> map) {
      this.map = map;
    }

    @Override
    public Iterator<V> iterator() {
      return new VersionIterator<>(map, Map.Entry::getValue);
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

  /** An entry of one version whose {@code setValue} puts the new value into the map. */
  private static final class WriteThroughEntry<K, V> extends AbstractMap.SimpleEntry<K, V> {
    private final transient SnapshotMap<K, V> map;

    WriteThroughEntry(SnapshotMap<K, V> map, K key, V value) {
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
