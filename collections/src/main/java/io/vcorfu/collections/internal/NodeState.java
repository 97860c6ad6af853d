package io.vcorfu.collections.internal;

import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.List;

/**
 * The whole content of one B-tree node, immutable. A leaf ({@code level} 0) holds sorted keys and
 * their values; an internal node at level L holds {@code children} (stream ids of nodes at level L
 * - 1) and {@code keys.size() == children.size() - 1} separators: child i holds the keys k with
 * {@code keys[i-1] <= k < keys[i]}.
 *
 * <p>Updates copy the node's arrays (O(fanout), constant in the tree's size), so every version of a
 * node stays intact.
 */
public record NodeState(
    int level, List<Object> keys, List<Object> values, List<StreamId> children) {
  public static final NodeState EMPTY_LEAF = new NodeState(0, List.of(), List.of(), List.of());

  public NodeState {
    keys = List.copyOf(keys);
    values = List.copyOf(values);
    children = List.copyOf(children);
  }

  public static NodeState leaf(List<Object> keys, List<Object> values) {
    return new NodeState(0, keys, values, List.of());
  }

  public static NodeState internal(int level, List<Object> keys, List<StreamId> children) {
    return new NodeState(level, keys, List.of(), children);
  }

  public boolean isLeaf() {
    return level == 0;
  }

  /** Entries of a leaf, children of an internal node. */
  public int size() {
    return isLeaf() ? keys.size() : children.size();
  }

  @SuppressWarnings("unchecked")
  static int compare(Object a, Object b) {
    return ((Comparable<Object>) a).compareTo(b);
  }

  /** Index of {@code key} in {@code keys}, or {@code -(insertion point) - 1}. */
  public int search(Object key) {
    int lo = 0;
    int hi = keys.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = compare(keys.get(mid), key);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -(lo + 1);
  }

  /**
   * The index of the child whose key interval holds {@code key}: the number of separators at or
   * below it.
   */
  public int childIndex(Object key) {
    int i = search(key);
    return i >= 0 ? i + 1 : -(i + 1);
  }

  /** The value of {@code key} in this leaf, or null. */
  public Object valueOf(Object key) {
    int i = search(key);
    return i >= 0 ? values.get(i) : null;
  }

  /** This leaf with {@code key} mapped to {@code value}. */
  public NodeState withEntry(Object key, Object value) {
    int i = search(key);
    List<Object> k = new ArrayList<>(keys);
    List<Object> v = new ArrayList<>(values);
    if (i >= 0) {
      v.set(i, value);
    } else {
      k.add(-(i + 1), key);
      v.add(-(i + 1), value);
    }
    return leaf(k, v);
  }

  /** This leaf without {@code key}. */
  public NodeState withoutEntry(Object key) {
    int i = search(key);
    if (i < 0) {
      return this;
    }
    List<Object> k = new ArrayList<>(keys);
    List<Object> v = new ArrayList<>(values);
    k.remove(i);
    v.remove(i);
    return leaf(k, v);
  }
}
