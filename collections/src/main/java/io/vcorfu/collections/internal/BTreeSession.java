package io.vcorfu.collections.internal;

import io.vcorfu.protocol.StreamId;
import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One operation on a {@code CSMRBTree}: the B+-tree algorithms over node objects. The caller runs
 * it inside one transaction (or over snapshot views), so every read sees one version of every node.
 *
 * <p>A session reads each node at most once and keeps what it read, and what it wrote, in a cache,
 * so it never reads back its own writes through the runtime. Reads of internal nodes and of whole
 * leaves conflict with any write to those nodes; a lookup or an in-place update of a key in a leaf
 * conflicts on that key only. Structure changes (split, borrow, merge) rewrite whole nodes, so they
 * conflict with every concurrent operation that passed through them.
 *
 * <p>Shape: leaves hold {@code min..fanout} entries and internal nodes {@code min..fanout}
 * children, {@code min = (fanout + 1) / 2}, except the root (a leaf with 0..fanout entries or an
 * internal node with 2..fanout children). All leaves are at level 0.
 *
 * <p>Not thread-safe: one session per operation and thread.
 */
public final class BTreeSession<K extends Comparable<? super K>, V> {
  /** Opens node objects by stream id and names new ones. */
  public interface Nodes {
    BTreeNode open(StreamId id);

    StreamId newId();
  }

  private record Step(StreamId id, int index) {}

  private final BTreeMeta meta;
  private final Nodes nodes;
  private final int fanout;
  private final int min;
  private final Map<StreamId, NodeState> seen = new HashMap<>();
  private TreeInfo info;

  public BTreeSession(BTreeMeta meta, Nodes nodes, int fanout) {
    this.meta = meta;
    this.nodes = nodes;
    this.fanout = fanout;
    this.min = (fanout + 1) / 2;
  }

  int min() {
    return min;
  }

  int fanout() {
    return fanout;
  }

  TreeInfo info() {
    if (info == null) {
      info = meta.info();
      if (info == null) {
        throw new IllegalStateException(
            "the B-tree's root object holds no root node: the tree was never created");
      }
    }
    return info;
  }

  /** The node's whole state (read once per session; a whole-node read). */
  NodeState read(StreamId id) {
    NodeState s = seen.get(id);
    if (s == null) {
      s = nodes.open(id).state();
      seen.put(id, s);
    }
    return s;
  }

  private Object leafGet(StreamId leaf, Object key) {
    NodeState s = seen.get(leaf);
    return s != null ? s.valueOf(key) : nodes.open(leaf).get(key);
  }

  private void write(StreamId id, NodeState s) {
    nodes.open(id).replace(s.level(), s.keys(), s.values(), s.children());
    seen.put(id, s);
  }

  private StreamId create(NodeState s) {
    StreamId id = nodes.newId();
    write(id, s);
    return id;
  }

  private void setRoot(StreamId root, int level) {
    meta.setRoot(root, level);
    info = new TreeInfo(root, level, info().fanout());
  }

  /**
   * The leaf whose interval holds {@code key}; fills {@code path} with the internal nodes above it.
   */
  private StreamId descend(Object key, Deque<Step> path) {
    StreamId id = info().root();
    for (int level = info().rootLevel(); level > 0; level--) {
      NodeState s = read(id);
      int i = s.childIndex(key);
      path.addLast(new Step(id, i));
      id = s.children().get(i);
    }
    return id;
  }

  @SuppressWarnings("unchecked")
  public V get(K key) {
    return (V) leafGet(descend(key, new ArrayDeque<>()), key);
  }

  /** Maps {@code key} to {@code value}; returns the previous value or null. */
  @SuppressWarnings("unchecked")
  public V put(K key, V value) {
    Deque<Step> path = new ArrayDeque<>();
    StreamId leaf = descend(key, path);
    Object old = leafGet(leaf, key);
    if (old == null) {
      NodeState grown = read(leaf).withEntry(key, value);
      if (grown.size() > fanout) {
        split(leaf, grown, path);
        return null;
      }
    }
    nodes.open(leaf).put(key, value);
    NodeState s = seen.get(leaf);
    if (s != null) {
      seen.put(leaf, s.withEntry(key, value));
    }
    return (V) old;
  }

  /** Removes {@code key}; returns its value or null. */
  @SuppressWarnings("unchecked")
  public V remove(K key) {
    Deque<Step> path = new ArrayDeque<>();
    StreamId leaf = descend(key, path);
    Object old = leafGet(leaf, key);
    if (old == null) {
      return null;
    }
    if (!path.isEmpty()) {
      NodeState shrunk = read(leaf).withoutEntry(key);
      if (shrunk.size() < min) {
        rebalance(leaf, shrunk, path);
        return (V) old;
      }
    }
    nodes.open(leaf).remove(key);
    NodeState s = seen.get(leaf);
    if (s != null) {
      seen.put(leaf, s.withoutEntry(key));
    }
    return (V) old;
  }

  /** Makes the tree empty: a new, empty root leaf. */
  public void clearAll() {
    StreamId root = create(NodeState.EMPTY_LEAF);
    setRoot(root, 0);
  }

  /**
   * Splits overfull {@code node} (stored as {@code id}) and, while they overflow, its ancestors.
   */
  private void split(StreamId id, NodeState node, Deque<Step> path) {
    while (true) {
      int h = (node.size() + 1) / 2;
      NodeState left;
      NodeState right;
      Object sep;
      if (node.isLeaf()) {
        left = NodeState.leaf(node.keys().subList(0, h), node.values().subList(0, h));
        right =
            NodeState.leaf(
                node.keys().subList(h, node.size()), node.values().subList(h, node.size()));
        sep = node.keys().get(h);
      } else {
        left =
            NodeState.internal(
                node.level(), node.keys().subList(0, h - 1), node.children().subList(0, h));
        right =
            NodeState.internal(
                node.level(),
                node.keys().subList(h, node.keys().size()),
                node.children().subList(h, node.size()));
        sep = node.keys().get(h - 1);
      }
      write(id, left);
      StreamId rightId = create(right);
      if (path.isEmpty()) {
        StreamId root =
            create(NodeState.internal(node.level() + 1, List.of(sep), List.of(id, rightId)));
        setRoot(root, node.level() + 1);
        return;
      }
      Step parent = path.removeLast();
      NodeState ps = read(parent.id());
      List<Object> keys = new ArrayList<>(ps.keys());
      List<StreamId> children = new ArrayList<>(ps.children());
      keys.add(parent.index(), sep);
      children.add(parent.index() + 1, rightId);
      NodeState grown = NodeState.internal(ps.level(), keys, children);
      if (grown.size() <= fanout) {
        write(parent.id(), grown);
        return;
      }
      id = parent.id();
      node = grown;
    }
  }

  /**
   * Stores {@code node} (the new state of {@code id}), borrowing or merging while nodes underflow.
   */
  private void rebalance(StreamId id, NodeState node, Deque<Step> path) {
    while (true) {
      if (path.isEmpty()) {
        if (!node.isLeaf() && node.size() == 1) {
          setRoot(node.children().get(0), node.level() - 1);
        } else {
          write(id, node);
        }
        return;
      }
      if (node.size() >= min) {
        write(id, node);
        return;
      }
      Step parent = path.removeLast();
      NodeState ps = read(parent.id());
      int i = parent.index();
      boolean siblingOnLeft = i > 0;
      int sepIndex = siblingOnLeft ? i - 1 : i;
      StreamId siblingId = ps.children().get(siblingOnLeft ? i - 1 : i + 1);
      NodeState sibling = read(siblingId);
      StreamId leftId = siblingOnLeft ? siblingId : id;
      StreamId rightId = siblingOnLeft ? id : siblingId;
      NodeState l = siblingOnLeft ? sibling : node;
      NodeState r = siblingOnLeft ? node : sibling;
      Object sep = ps.keys().get(sepIndex);
      List<Object> parentKeys = new ArrayList<>(ps.keys());
      if (sibling.size() > min) {
        NodeMoves.Moved moved =
            siblingOnLeft ? NodeMoves.shiftRight(l, r, sep) : NodeMoves.shiftLeft(l, r, sep);
        write(leftId, moved.left());
        write(rightId, moved.right());
        parentKeys.set(sepIndex, moved.separator());
        write(parent.id(), NodeState.internal(ps.level(), parentKeys, ps.children()));
        return;
      }
      write(leftId, NodeMoves.merge(l, r, sep));
      List<StreamId> parentChildren = new ArrayList<>(ps.children());
      parentKeys.remove(sepIndex);
      parentChildren.remove(sepIndex + 1);
      id = parent.id();
      node = NodeState.internal(ps.level(), parentKeys, parentChildren);
    }
  }

  @SuppressWarnings("unchecked")
  private static <K> K keyAt(NodeState s, int i) {
    return (K) s.keys().get(i);
  }

  @SuppressWarnings("unchecked")
  private Map.Entry<K, V> entryAt(NodeState s, int i) {
    return new AbstractMap.SimpleImmutableEntry<>((K) s.keys().get(i), (V) s.values().get(i));
  }

  /** The lowest entry of {@code range}, or null. */
  public Map.Entry<K, V> first(KeyRange<K> range) {
    return firstIn(info().root(), range);
  }

  private Map.Entry<K, V> firstIn(StreamId id, KeyRange<K> range) {
    NodeState s = read(id);
    if (s.isLeaf()) {
      int i = range.hasLo() ? insertionPoint(s, range.lo()) : 0;
      for (; i < s.size(); i++) {
        K k = keyAt(s, i);
        if (!range.tooLow(k)) {
          return range.tooHigh(k) ? null : entryAt(s, i);
        }
      }
      return null;
    }
    for (int i = range.hasLo() ? s.childIndex(range.lo()) : 0; i < s.size(); i++) {
      if (i > 0 && range.tooHigh(keyAt(s, i - 1))) {
        break;
      }
      Map.Entry<K, V> e = firstIn(s.children().get(i), range);
      if (e != null) {
        return e;
      }
    }
    return null;
  }

  /** The highest entry of {@code range}, or null. */
  public Map.Entry<K, V> last(KeyRange<K> range) {
    return lastIn(info().root(), range);
  }

  private Map.Entry<K, V> lastIn(StreamId id, KeyRange<K> range) {
    NodeState s = read(id);
    if (s.isLeaf()) {
      int i = range.hasHi() ? Math.min(insertionPoint(s, range.hi()), s.size() - 1) : s.size() - 1;
      for (; i >= 0; i--) {
        K k = keyAt(s, i);
        if (!range.tooHigh(k)) {
          return range.tooLow(k) ? null : entryAt(s, i);
        }
      }
      return null;
    }
    for (int i = range.hasHi() ? s.childIndex(range.hi()) : s.size() - 1; i >= 0; i--) {
      if (belowRange(s, i, range)) {
        break;
      }
      Map.Entry<K, V> e = lastIn(s.children().get(i), range);
      if (e != null) {
        return e;
      }
    }
    return null;
  }

  /**
   * True when every key child {@code i} of internal node {@code s} can hold is below {@code range}.
   */
  private static <K extends Comparable<? super K>> boolean belowRange(
      NodeState s, int i, KeyRange<K> range) {
    return i < s.size() - 1 && range.hasLo() && NodeState.compare(s.keys().get(i), range.lo()) <= 0;
  }

  private static int insertionPoint(NodeState s, Object key) {
    int i = s.search(key);
    return i >= 0 ? i : -(i + 1);
  }

  /** The entries of {@code range} in ascending key order (descending when asked). */
  public List<Map.Entry<K, V>> entries(KeyRange<K> range, boolean descending) {
    List<Map.Entry<K, V>> out = new ArrayList<>();
    if (!range.isEmptyInterval()) {
      collect(info().root(), range, out);
    }
    if (descending) {
      java.util.Collections.reverse(out);
    }
    return out;
  }

  private void collect(StreamId id, KeyRange<K> range, List<Map.Entry<K, V>> out) {
    NodeState s = read(id);
    if (s.isLeaf()) {
      for (int i = range.hasLo() ? insertionPoint(s, range.lo()) : 0; i < s.size(); i++) {
        K k = keyAt(s, i);
        if (range.tooHigh(k)) {
          return;
        }
        if (!range.tooLow(k)) {
          out.add(entryAt(s, i));
        }
      }
      return;
    }
    for (int i = range.hasLo() ? s.childIndex(range.lo()) : 0; i < s.size(); i++) {
      if (i > 0 && range.tooHigh(keyAt(s, i - 1))) {
        return;
      }
      collect(s.children().get(i), range, out);
    }
  }

  /** How many keys lie in {@code range}: reads every node overlapping it. */
  public int count(KeyRange<K> range) {
    return range.isEmptyInterval() ? 0 : countIn(info().root(), range);
  }

  private int countIn(StreamId id, KeyRange<K> range) {
    NodeState s = read(id);
    int n = 0;
    if (s.isLeaf()) {
      for (int i = range.hasLo() ? insertionPoint(s, range.lo()) : 0; i < s.size(); i++) {
        K k = keyAt(s, i);
        if (range.tooHigh(k)) {
          break;
        }
        if (!range.tooLow(k)) {
          n++;
        }
      }
      return n;
    }
    for (int i = range.hasLo() ? s.childIndex(range.lo()) : 0; i < s.size(); i++) {
      if (i > 0 && range.tooHigh(keyAt(s, i - 1))) {
        break;
      }
      n += countIn(s.children().get(i), range);
    }
    return n;
  }
}
