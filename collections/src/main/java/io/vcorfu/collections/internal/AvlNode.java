package io.vcorfu.collections.internal;

import java.util.Map;
import java.util.Objects;

/**
 * One immutable node of a {@link PersistentSortedMap}, also its map entry. The static operations
 * return new nodes along the changed path and share everything else (path copying).
 */
final class AvlNode<K extends Comparable<? super K>, V> implements Map.Entry<K, V> {
  final K key;
  final V value;
  final AvlNode<K, V> left;
  final AvlNode<K, V> right;
  private final int height;
  private final int size;

  private AvlNode(K key, V value, AvlNode<K, V> left, AvlNode<K, V> right) {
    this.key = key;
    this.value = value;
    this.left = left;
    this.right = right;
    this.height = 1 + Math.max(height(left), height(right));
    this.size = 1 + size(left) + size(right);
  }

  static int height(AvlNode<?, ?> n) {
    return n == null ? 0 : n.height;
  }

  static int size(AvlNode<?, ?> n) {
    return n == null ? 0 : n.size;
  }

  static <K extends Comparable<? super K>, V> AvlNode<K, V> insert(
      AvlNode<K, V> n, K key, V value) {
    if (n == null) {
      return new AvlNode<>(key, value, null, null);
    }
    int c = key.compareTo(n.key);
    if (c == 0) {
      return n.value == value ? n : new AvlNode<>(n.key, value, n.left, n.right);
    }
    if (c < 0) {
      AvlNode<K, V> l = insert(n.left, key, value);
      return l == n.left ? n : balance(n.key, n.value, l, n.right);
    }
    AvlNode<K, V> r = insert(n.right, key, value);
    return r == n.right ? n : balance(n.key, n.value, n.left, r);
  }

  static <K extends Comparable<? super K>, V> AvlNode<K, V> delete(AvlNode<K, V> n, K key) {
    if (n == null) {
      return null;
    }
    int c = key.compareTo(n.key);
    if (c < 0) {
      AvlNode<K, V> l = delete(n.left, key);
      return l == n.left ? n : balance(n.key, n.value, l, n.right);
    }
    if (c > 0) {
      AvlNode<K, V> r = delete(n.right, key);
      return r == n.right ? n : balance(n.key, n.value, n.left, r);
    }
    if (n.left == null) {
      return n.right;
    }
    if (n.right == null) {
      return n.left;
    }
    AvlNode<K, V> min = n.right;
    while (min.left != null) {
      min = min.left;
    }
    return balance(min.key, min.value, n.left, deleteMin(n.right));
  }

  private static <K extends Comparable<? super K>, V> AvlNode<K, V> deleteMin(AvlNode<K, V> n) {
    if (n.left == null) {
      return n.right;
    }
    return balance(n.key, n.value, deleteMin(n.left), n.right);
  }

  /** A node for (key, value) over subtrees whose heights differ by at most two, rebalanced. */
  private static <K extends Comparable<? super K>, V> AvlNode<K, V> balance(
      K key, V value, AvlNode<K, V> l, AvlNode<K, V> r) {
    int hl = height(l);
    int hr = height(r);
    if (hl > hr + 1) {
      if (height(l.left) >= height(l.right)) {
        return new AvlNode<>(l.key, l.value, l.left, new AvlNode<>(key, value, l.right, r));
      }
      AvlNode<K, V> lr = l.right;
      return new AvlNode<>(
          lr.key,
          lr.value,
          new AvlNode<>(l.key, l.value, l.left, lr.left),
          new AvlNode<>(key, value, lr.right, r));
    }
    if (hr > hl + 1) {
      if (height(r.right) >= height(r.left)) {
        return new AvlNode<>(r.key, r.value, new AvlNode<>(key, value, l, r.left), r.right);
      }
      AvlNode<K, V> rl = r.left;
      return new AvlNode<>(
          rl.key,
          rl.value,
          new AvlNode<>(key, value, l, rl.left),
          new AvlNode<>(r.key, r.value, rl.right, r.right));
    }
    return new AvlNode<>(key, value, l, r);
  }

  /**
   * Checks the subtree at {@code n}, whose keys must lie strictly between lo and hi (null:
   * unbounded).
   */
  static <K extends Comparable<? super K>, V> void check(AvlNode<K, V> n, K lo, K hi) {
    if (n == null) {
      return;
    }
    if ((lo != null && n.key.compareTo(lo) <= 0) || (hi != null && n.key.compareTo(hi) >= 0)) {
      throw new IllegalStateException(
          "key " + n.key + " is out of order: it must lie between " + lo + " and " + hi);
    }
    check(n.left, lo, n.key);
    check(n.right, n.key, hi);
    if (n.height != 1 + Math.max(height(n.left), height(n.right))) {
      throw new IllegalStateException(
          "the node of key " + n.key + " records height " + n.height + ", which is wrong");
    }
    if (n.size != 1 + size(n.left) + size(n.right)) {
      throw new IllegalStateException(
          "the node of key " + n.key + " records size " + n.size + ", which is wrong");
    }
    if (Math.abs(height(n.left) - height(n.right)) > 1) {
      throw new IllegalStateException(
          "the node of key "
              + n.key
              + " is unbalanced: subtree heights "
              + height(n.left)
              + " and "
              + height(n.right));
    }
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
    throw new UnsupportedOperationException(
        "this entry belongs to an immutable version of the map; use put");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Map.Entry<?, ?> e
        && key.equals(e.getKey())
        && Objects.equals(value, e.getValue());
  }

  @Override
  public int hashCode() {
    return key.hashCode() ^ Objects.hashCode(value);
  }

  @Override
  public String toString() {
    return key + "=" + value;
  }
}
