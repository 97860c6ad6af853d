package io.vcorfu.collections.internal;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;

/**
 * The root object of one {@code CSMRBTree}, in its own stream: which node is the root and the
 * tree's fanout. Written only when the tree is created and when the root changes (a root split adds
 * a level, a root left with one child hands over to it), so ordinary updates never touch it.
 */
public class BTreeMeta implements VersionCapturing<TreeInfo> {
  /** The state before the tree is created (a captured version is never null). */
  private static final TreeInfo UNCREATED = new TreeInfo(null, -1, 0);

  private TreeInfo info = UNCREATED;

  public BTreeMeta() {}

  /** The tree's settings, or null before it was created. */
  @Accessor
  public TreeInfo info() {
    return info.root() == null ? null : info;
  }

  /** Creates the tree; does nothing when it already exists (the first creation wins). */
  @Mutator
  public void create(StreamId root, int fanout) {
    if (info.root() == null) {
      info = new TreeInfo(root, 0, fanout);
    }
  }

  /** Makes {@code root}, a node at level {@code level}, the root. */
  @Mutator
  public void setRoot(StreamId root, int level) {
    if (info.root() != null) {
      info = new TreeInfo(root, level, info.fanout());
    }
  }

  @Override
  public TreeInfo captureVersion() {
    return info;
  }

  @Override
  public void restoreVersion(TreeInfo version) {
    info = version == null ? UNCREATED : version;
  }
}
