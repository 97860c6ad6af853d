package io.vcorfu.collections.internal;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * An immutable hash map with structure sharing (a compressed hash-array mapped trie, see {@link
 * HamtNode}): {@link #plus} and {@link #minus} return a new map in O(log32 n) time and space,
 * copying only the path to the changed entry, and leave this map unchanged. Lookups cost O(log32 n)
 * (at most 7 levels, plus a linear scan of keys whose 32-bit hashes are equal).
 *
 * <p>As a {@link java.util.Map} it is read-only (mutators throw {@link
 * UnsupportedOperationException}); {@code equals}, {@code hashCode} and {@code toString} follow the
 * {@code Map} contract. Iteration order follows the keys' hash bits, not insertion order. Null keys
 * and values are refused with {@link NullPointerException}. Immutable and thread-safe.
 */
public final class PersistentHashMap<K, V> extends AbstractMap<K, V> {
  private static final PersistentHashMap<?, ?> EMPTY = new PersistentHashMap<>(HamtNode.EMPTY, 0);

  private final HamtNode root;
  private final int size;

  private PersistentHashMap(HamtNode root, int size) {
    this.root = root;
    this.size = size;
  }

  /** The empty map. */
  @SuppressWarnings("unchecked")
  public static <K, V> PersistentHashMap<K, V> empty() {
    return (PersistentHashMap<K, V>) EMPTY;
  }

  /** A map holding the entries of {@code entries} (O(n log n)). */
  public static <K, V> PersistentHashMap<K, V> copyOf(Map<? extends K, ? extends V> entries) {
    PersistentHashMap<K, V> out = empty();
    for (Map.Entry<? extends K, ? extends V> e : entries.entrySet()) {
      out = out.plus(e.getKey(), e.getValue());
    }
    return out;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public boolean isEmpty() {
    return size == 0;
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(Object key) {
    Objects.requireNonNull(key, "key");
    return (V) root.get(key, key.hashCode(), 0);
  }

  @Override
  public boolean containsKey(Object key) {
    return get(key) != null;
  }

  /** This map with {@code key} mapped to {@code value}; this map itself when it already was. */
  public PersistentHashMap<K, V> plus(K key, V value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    HamtNode.Change change = new HamtNode.Change();
    HamtNode updated = root.put(key, value, key.hashCode(), 0, change);
    if (updated == root) {
      return this;
    }
    return new PersistentHashMap<>(updated, change.found ? size : size + 1);
  }

  /** This map without {@code key}; this map itself when {@code key} is absent. */
  public PersistentHashMap<K, V> minus(Object key) {
    Objects.requireNonNull(key, "key");
    HamtNode.Change change = new HamtNode.Change();
    HamtNode updated = root.remove(key, key.hashCode(), 0, change);
    if (!change.changed) {
      return this;
    }
    return new PersistentHashMap<>(updated, size - 1);
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<K, V>> iterator() {
        return new EntryIterator<>(root);
      }

      @Override
      public int size() {
        return size;
      }

      @Override
      public boolean contains(Object o) {
        if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null) {
          return false;
        }
        Object v = get(e.getKey());
        return v != null && v.equals(e.getValue());
      }
    };
  }

  /** Depth-first over the trie: a node's own entries, then its sub-nodes. */
  private static final class EntryIterator<K, V> implements Iterator<Map.Entry<K, V>> {
    private final ArrayDeque<HamtNode> pending = new ArrayDeque<>();
    private HamtNode node;
    private int next;

    EntryIterator(HamtNode root) {
      this.node = root;
      advance();
    }

    /** Moves to a node with an entry at {@code next}, or to null when none is left. */
    private void advance() {
      while (node != null && next >= node.entryCount()) {
        for (int i = node.nodeCount() - 1; i >= 0; i--) {
          pending.push(node.nodeAt(i));
        }
        node = pending.poll();
        next = 0;
      }
    }

    @Override
    public boolean hasNext() {
      return node != null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Map.Entry<K, V> next() {
      if (node == null) {
        throw new NoSuchElementException();
      }
      Map.Entry<K, V> e = new SimpleImmutableEntry<>((K) node.keyAt(next), (V) node.valueAt(next));
      next++;
      advance();
      return e;
    }
  }
}
