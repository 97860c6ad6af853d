package io.vcorfu.collections;

import io.vcorfu.collections.internal.ForkOverlay;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * One version of a fork's bucket as one immutable map, without copying: the fork's own updates
 * ({@link ForkOverlay.State}) over its parent's bucket as of the fork's base. A key the fork put
 * reads its value, a key it removed (or every key, once it cleared) reads absent, any other key
 * reads the parent's. Costs O(1) to make; {@link #size} costs one parent lookup per key the fork
 * touched, once. Thread-safe (both parts are immutable).
 */
final class ForkSnapshot<K, V> extends AbstractMap<K, V> {
  private final ForkOverlay.State<K, V> own;
  private final Map<K, V> parent;
  private int size = -1;

  ForkSnapshot(ForkOverlay.State<K, V> own, Map<K, V> parent) {
    this.own = own;
    this.parent = parent;
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(Object key) {
    if (key == null) {
      return null;
    }
    Object mine = own.lookup(key);
    if (mine == ForkOverlay.REMOVED) {
      return null;
    }
    return mine != null ? (V) mine : parent.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return get(key) != null;
  }

  @Override
  public int size() {
    int s = size;
    if (s < 0) {
      long total = own.values().size();
      if (!own.cleared()) {
        total += parent.size();
        for (K key : own.values().keySet()) {
          total -= parent.containsKey(key) ? 1 : 0;
        }
        for (K key : own.removed().keySet()) {
          total -= parent.containsKey(key) ? 1 : 0;
        }
      }
      s = (int) Math.min(total, Integer.MAX_VALUE);
      size = s;
    }
    return s;
  }

  @Override
  public boolean isEmpty() {
    return size() == 0;
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<K, V>> iterator() {
        return new Entries();
      }

      @Override
      public int size() {
        return ForkSnapshot.this.size();
      }
    };
  }

  /** The fork's own entries, then the parent's that the fork does not hide. */
  private final class Entries implements Iterator<Map.Entry<K, V>> {
    private final Iterator<Map.Entry<K, V>> mine = own.values().entrySet().iterator();
    private final Iterator<Map.Entry<K, V>> inherited =
        own.cleared() ? null : parent.entrySet().iterator();
    private Map.Entry<K, V> next;

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      if (mine.hasNext()) {
        next = mine.next();
        return true;
      }
      while (inherited != null && inherited.hasNext()) {
        Map.Entry<K, V> e = inherited.next();
        if (!own.shadows(e.getKey())) {
          next = e;
          return true;
        }
      }
      return false;
    }

    @Override
    public Map.Entry<K, V> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Map.Entry<K, V> e = next;
      next = null;
      return new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue());
    }
  }
}
