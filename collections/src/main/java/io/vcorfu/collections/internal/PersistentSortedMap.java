package io.vcorfu.collections.internal;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * An immutable sorted map: a persistent AVL tree whose nodes also count their subtree's size.
 *
 * <p>Why this structure: every update copies only the O(log n) nodes on the path from the root to
 * the changed key and shares every other node with the previous version, so each version costs
 * O(log n) to make and all older versions stay intact for free. That is what a replicated object
 * needs to keep one version per applied update (snapshot reads, {@code asOf} views and a
 * transaction's private copy start from any version in O(1)). AVL balance bounds the height by
 * about 1.44 log2(n), so get, put, remove and every navigation are O(log n); subtree sizes make
 * counting the keys of any range O(log n) too. Iterators walk one version and never see later
 * updates.
 *
 * <p>Keys are ordered by their natural ordering; neither keys nor values may be null. Thread-safe
 * (immutable).
 */
public final class PersistentSortedMap<K extends Comparable<? super K>, V> {
  private static final PersistentSortedMap<?, ?> EMPTY = new PersistentSortedMap<>(null);

  private final AvlNode<K, V> root;

  private PersistentSortedMap(AvlNode<K, V> root) {
    this.root = root;
  }

  @SuppressWarnings("unchecked")
  public static <K extends Comparable<? super K>, V> PersistentSortedMap<K, V> empty() {
    return (PersistentSortedMap<K, V>) EMPTY;
  }

  public int size() {
    return AvlNode.size(root);
  }

  public boolean isEmpty() {
    return root == null;
  }

  /** The height of the tree (0 when empty). */
  public int height() {
    return AvlNode.height(root);
  }

  /** The entry of {@code key}, or null. */
  public Map.Entry<K, V> entry(K key) {
    Objects.requireNonNull(key, "key");
    AvlNode<K, V> n = root;
    while (n != null) {
      int c = key.compareTo(n.key);
      if (c == 0) {
        return n;
      }
      n = c < 0 ? n.left : n.right;
    }
    return null;
  }

  /** The value of {@code key}, or null. */
  public V get(K key) {
    Map.Entry<K, V> e = entry(key);
    return e == null ? null : e.getValue();
  }

  public boolean containsKey(K key) {
    return entry(key) != null;
  }

  /** This map with {@code key} mapped to {@code value}. */
  public PersistentSortedMap<K, V> put(K key, V value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    AvlNode<K, V> r = AvlNode.insert(root, key, value);
    return r == root ? this : new PersistentSortedMap<>(r);
  }

  /** This map without {@code key}. */
  public PersistentSortedMap<K, V> remove(K key) {
    Objects.requireNonNull(key, "key");
    AvlNode<K, V> r = AvlNode.delete(root, key);
    return r == root ? this : new PersistentSortedMap<>(r);
  }

  /** This map without any key of {@code range}; O(k log n) for k removed keys. */
  public PersistentSortedMap<K, V> removeRange(KeyRange<K> range) {
    if (range.lo() == null && range.hi() == null) {
      return empty();
    }
    AvlNode<K, V> r = root;
    Iterator<Map.Entry<K, V>> it = iterator(range, false);
    while (it.hasNext()) {
      r = AvlNode.delete(r, it.next().getKey());
    }
    return r == root ? this : new PersistentSortedMap<>(r);
  }

  /** The entry with the lowest key inside {@code range}, or null. */
  public Map.Entry<K, V> first(KeyRange<K> range) {
    AvlNode<K, V> best = null;
    AvlNode<K, V> n = root;
    while (n != null) {
      if (range.tooLow(n.key)) {
        n = n.right;
      } else {
        best = n;
        n = n.left;
      }
    }
    return best == null || range.tooHigh(best.key) ? null : best;
  }

  /** The entry with the highest key inside {@code range}, or null. */
  public Map.Entry<K, V> last(KeyRange<K> range) {
    AvlNode<K, V> best = null;
    AvlNode<K, V> n = root;
    while (n != null) {
      if (range.tooHigh(n.key)) {
        n = n.left;
      } else {
        best = n;
        n = n.right;
      }
    }
    return best == null || range.tooLow(best.key) ? null : best;
  }

  /** How many keys lie inside {@code range}; O(log n). */
  public int count(KeyRange<K> range) {
    if (range.isEmptyInterval()) {
      return 0;
    }
    int below = 0;
    for (AvlNode<K, V> n = root; n != null; ) {
      if (range.tooLow(n.key)) {
        below += AvlNode.size(n.left) + 1;
        n = n.right;
      } else {
        n = n.left;
      }
    }
    int above = 0;
    for (AvlNode<K, V> n = root; n != null; ) {
      if (range.tooHigh(n.key)) {
        above += AvlNode.size(n.right) + 1;
        n = n.left;
      } else {
        n = n.right;
      }
    }
    return Math.max(0, size() - below - above);
  }

  /**
   * The entries inside {@code range} in ascending (or descending) key order, as of this version.
   * The entries are immutable ({@code setValue} throws). O(log n) to start, O(1) amortized per
   * entry.
   */
  public Iterator<Map.Entry<K, V>> iterator(KeyRange<K> range, boolean descending) {
    return new RangeIterator<>(root, range, descending);
  }

  /**
   * Checks the AVL invariants: keys strictly ascending in order, every node's height and size
   * correct, and the heights of every node's subtrees differing by at most one.
   *
   * @throws IllegalStateException naming the first violation found
   */
  public void checkInvariants() {
    AvlNode.check(root, null, null);
  }

  private static final class RangeIterator<K extends Comparable<? super K>, V>
      implements Iterator<Map.Entry<K, V>> {
    private final ArrayDeque<AvlNode<K, V>> stack = new ArrayDeque<>();
    private final KeyRange<K> range;
    private final boolean descending;

    RangeIterator(AvlNode<K, V> root, KeyRange<K> range, boolean descending) {
      this.range = range;
      this.descending = descending;
      AvlNode<K, V> n = root;
      while (n != null) {
        if (descending ? range.tooHigh(n.key) : range.tooLow(n.key)) {
          n = descending ? n.left : n.right;
        } else {
          stack.push(n);
          n = descending ? n.right : n.left;
        }
      }
    }

    @Override
    public boolean hasNext() {
      AvlNode<K, V> n = stack.peek();
      return n != null && !(descending ? range.tooLow(n.key) : range.tooHigh(n.key));
    }

    @Override
    public Map.Entry<K, V> next() {
      if (!hasNext()) {
        throw new NoSuchElementException("no more entries in " + range);
      }
      AvlNode<K, V> n = stack.pop();
      for (AvlNode<K, V> c = descending ? n.left : n.right;
          c != null;
          c = descending ? c.right : c.left) {
        stack.push(c);
      }
      return n;
    }
  }
}
