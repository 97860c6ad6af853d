package io.vcorfu.collections.internal;

import io.vcorfu.protocol.StreamId;
import java.util.HashSet;
import java.util.Set;

/**
 * Walks a whole B-tree and checks its shape: every node at the level its parent expects (so all
 * leaves at the same depth), keys strictly ascending and inside the interval the separators above
 * give them, node sizes within the fanout bounds, and no node reachable twice.
 */
public final class BTreeVerifier {
  /**
   * What a successful check found: depth (levels, 1 for a lone leaf), node count and entry count.
   */
  public record Shape(int depth, int nodes, long entries) {}

  private final BTreeSession<?, ?> session;
  private final Set<StreamId> visited = new HashSet<>();
  private long entries;

  public BTreeVerifier(BTreeSession<?, ?> session) {
    this.session = session;
  }

  /**
   * Checks the tree.
   *
   * @throws IllegalStateException naming the first violation found
   */
  public Shape check() {
    TreeInfo info = session.info();
    walk(info.root(), info.rootLevel(), null, null, true);
    return new Shape(info.rootLevel() + 1, visited.size(), entries);
  }

  private void walk(StreamId id, int level, Object lo, Object hi, boolean root) {
    if (!visited.add(id)) {
      throw new IllegalStateException("node " + id + " is reachable twice");
    }
    NodeState s = session.read(id);
    if (s.level() != level) {
      throw new IllegalStateException(
          "node " + id + " is at level " + s.level() + " but its parent expects level " + level);
    }
    for (int i = 0; i < s.keys().size(); i++) {
      Object k = s.keys().get(i);
      if (i > 0 && NodeState.compare(s.keys().get(i - 1), k) >= 0) {
        throw new IllegalStateException(
            "the keys of node " + id + " are not strictly ascending at " + k);
      }
      if ((lo != null && NodeState.compare(k, lo) < 0)
          || (hi != null && NodeState.compare(k, hi) >= 0)) {
        throw new IllegalStateException(
            "key " + k + " of node " + id + " lies outside its interval [" + lo + ", " + hi + ")");
      }
    }
    int size = s.size();
    int min = root ? (s.isLeaf() ? 0 : 2) : session.min();
    if (size < min || size > session.fanout()) {
      throw new IllegalStateException(
          "node "
              + id
              + " holds "
              + size
              + (s.isLeaf() ? " entries" : " children")
              + ", outside the bounds "
              + min
              + ".."
              + session.fanout());
    }
    if (s.isLeaf()) {
      if (s.values().size() != s.keys().size() || !s.children().isEmpty()) {
        throw new IllegalStateException(
            "leaf "
                + id
                + " holds "
                + s.keys().size()
                + " keys but "
                + s.values().size()
                + " values and "
                + s.children().size()
                + " children");
      }
      entries += size;
      return;
    }
    if (s.keys().size() != size - 1 || !s.values().isEmpty()) {
      throw new IllegalStateException(
          "internal node "
              + id
              + " holds "
              + size
              + " children but "
              + s.keys().size()
              + " separators");
    }
    for (int i = 0; i < size; i++) {
      walk(
          s.children().get(i),
          level - 1,
          i == 0 ? lo : s.keys().get(i - 1),
          i == size - 1 ? hi : s.keys().get(i),
          false);
    }
  }
}
