package io.vcorfu.collections.internal;

import java.util.AbstractCollection;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The entry set and value collection of a {@link RangeNavigableMap}, and its iterators: they walk
 * one version of the store; {@code remove} and {@code setValue} write through to it.
 */
final class RangeEntries {
  private RangeEntries() {}

  /**
   * Iterates {@code entries} (one version of {@code store}) with write-through removal and entries.
   */
  static <K extends Comparable<? super K>, V> Iterator<Map.Entry<K, V>> iterator(
      RangeStore<K, V> store, Iterator<Map.Entry<K, V>> entries) {
    return new Iterator<>() {
      private K last;

      @Override
      public boolean hasNext() {
        return entries.hasNext();
      }

      @Override
      public Map.Entry<K, V> next() {
        Map.Entry<K, V> e = entries.next();
        last = e.getKey();
        return new WriteThroughEntry<>(store, e.getKey(), e.getValue());
      }

      @Override
      public void remove() {
        if (last == null) {
          throw new IllegalStateException(
              "next() has not returned an entry since the last remove()");
        }
        store.remove(last);
        last = null;
      }
    };
  }

  /** {@code f} of each element of {@code it}; {@code remove} removes through {@code it}. */
  static <A, B> Iterator<B> mapped(Iterator<? extends A> it, Function<? super A, ? extends B> f) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public B next() {
        return f.apply(it.next());
      }

      @Override
      public void remove() {
        it.remove();
      }
    };
  }

  private static final class WriteThroughEntry<K extends Comparable<? super K>, V>
      implements Map.Entry<K, V> {
    private final RangeStore<K, V> store;
    private final K key;
    private V value;

    WriteThroughEntry(RangeStore<K, V> store, K key, V value) {
      this.store = store;
      this.key = key;
      this.value = value;
    }

    @Override
    public K getKey() {
      return key;
    }

    @Override
    public V getValue() {
      return value;
    }

    @Override
    public V setValue(V v) {
      Objects.requireNonNull(v, "this map does not hold null values");
      V old = value;
      store.put(key, v);
      value = v;
      return old;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Map.Entry<?, ?> e && key.equals(e.getKey()) && value.equals(e.getValue());
    }

    @Override
    public int hashCode() {
      return key.hashCode() ^ value.hashCode();
    }

    @Override
    public String toString() {
      return key + "=" + value;
    }
  }

  static <K extends Comparable<? super K>, V> Set<Map.Entry<K, V>> entrySet(
      RangeNavigableMap<K, V> map) {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<K, V>> iterator() {
        return map.entryIterator();
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
        if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null || e.getValue() == null) {
          return false;
        }
        return e.getValue().equals(map.get(e.getKey()));
      }

      @Override
      public boolean remove(Object o) {
        if (!contains(o)) {
          return false;
        }
        map.remove(((Map.Entry<?, ?>) o).getKey());
        return true;
      }

      @Override
      public void clear() {
        map.clear();
      }
    };
  }

  static <K extends Comparable<? super K>, V> Collection<V> values(RangeNavigableMap<K, V> map) {
    return new AbstractCollection<>() {
      @Override
      public Iterator<V> iterator() {
        return mapped(map.entryIterator(), Map.Entry::getValue);
      }

      @Override
      public int size() {
        return map.size();
      }

      @Override
      public boolean contains(Object o) {
        return o != null && map.containsValue(o);
      }

      @Override
      public void clear() {
        map.clear();
      }
    };
  }
}
