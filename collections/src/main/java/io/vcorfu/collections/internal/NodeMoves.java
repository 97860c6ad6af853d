package io.vcorfu.collections.internal;

import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.List;

/**
 * Moving entries or children between two adjacent sibling nodes (left, right) around their
 * separator.
 */
final class NodeMoves {
  /** Two siblings after a move and the separator that now lies between them in their parent. */
  record Moved(NodeState left, NodeState right, Object separator) {}

  private NodeMoves() {}

  /** Moves the last entry (or child) of {@code l} to the front of {@code r}. */
  static Moved shiftRight(NodeState l, NodeState r, Object sep) {
    List<Object> lk = new ArrayList<>(l.keys());
    List<Object> rk = new ArrayList<>(r.keys());
    if (l.isLeaf()) {
      List<Object> lv = new ArrayList<>(l.values());
      List<Object> rv = new ArrayList<>(r.values());
      Object k = lk.remove(lk.size() - 1);
      rk.add(0, k);
      rv.add(0, lv.remove(lv.size() - 1));
      return new Moved(NodeState.leaf(lk, lv), NodeState.leaf(rk, rv), k);
    }
    List<StreamId> lc = new ArrayList<>(l.children());
    List<StreamId> rc = new ArrayList<>(r.children());
    rc.add(0, lc.remove(lc.size() - 1));
    rk.add(0, sep);
    Object up = lk.remove(lk.size() - 1);
    return new Moved(
        NodeState.internal(l.level(), lk, lc), NodeState.internal(r.level(), rk, rc), up);
  }

  /** Moves the first entry (or child) of {@code r} to the end of {@code l}. */
  static Moved shiftLeft(NodeState l, NodeState r, Object sep) {
    List<Object> lk = new ArrayList<>(l.keys());
    List<Object> rk = new ArrayList<>(r.keys());
    if (l.isLeaf()) {
      List<Object> lv = new ArrayList<>(l.values());
      List<Object> rv = new ArrayList<>(r.values());
      lk.add(rk.remove(0));
      lv.add(rv.remove(0));
      return new Moved(NodeState.leaf(lk, lv), NodeState.leaf(rk, rv), rk.get(0));
    }
    List<StreamId> lc = new ArrayList<>(l.children());
    List<StreamId> rc = new ArrayList<>(r.children());
    lc.add(rc.remove(0));
    lk.add(sep);
    Object up = rk.remove(0);
    return new Moved(
        NodeState.internal(l.level(), lk, lc), NodeState.internal(r.level(), rk, rc), up);
  }

  /** One node holding everything of {@code l}, then {@code r}. */
  static NodeState merge(NodeState l, NodeState r, Object sep) {
    List<Object> keys = new ArrayList<>(l.keys());
    if (l.isLeaf()) {
      List<Object> values = new ArrayList<>(l.values());
      keys.addAll(r.keys());
      values.addAll(r.values());
      return NodeState.leaf(keys, values);
    }
    keys.add(sep);
    keys.addAll(r.keys());
    List<StreamId> children = new ArrayList<>(l.children());
    children.addAll(r.children());
    return NodeState.internal(l.level(), keys, children);
  }
}
