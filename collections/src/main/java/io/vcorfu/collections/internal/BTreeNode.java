package io.vcorfu.collections.internal;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.ConflictParameter;
import io.vcorfu.runtime.annotations.Mutator;
import java.util.List;

/**
 * One node of a {@code CSMRBTree}, an SMR object in its own stream. Its state is one immutable
 * {@link NodeState}; children are named by stream id, so a parent is rewritten only when its own
 * set of children or separators changes.
 *
 * <p>Conflicts: {@link #get}, {@link #put} and {@link #remove} are per key, so transactions
 * updating different keys of one leaf do not conflict; {@link #state} and {@link #replace} cover
 * the whole node (structure changes conflict with everything that read the node).
 */
public class BTreeNode implements VersionCapturing<NodeState> {
  private NodeState state = NodeState.EMPTY_LEAF;

  public BTreeNode() {}

  @Accessor
  public NodeState state() {
    return state;
  }

  /** The value of {@code key} in this leaf, or null. */
  @Accessor
  public Object get(@ConflictParameter Object key) {
    return state.valueOf(key);
  }

  /** Maps {@code key} to {@code value} in this leaf. */
  @Mutator
  public void put(@ConflictParameter Object key, Object value) {
    state = state.withEntry(key, value);
  }

  /** Removes {@code key} from this leaf. */
  @Mutator
  public void remove(@ConflictParameter Object key) {
    state = state.withoutEntry(key);
  }

  /** Replaces the whole node (splits, merges, borrowing, creation). */
  @Mutator
  public void replace(int level, List<Object> keys, List<Object> values, List<StreamId> children) {
    state = new NodeState(level, keys, values, children);
  }

  @Override
  public NodeState captureVersion() {
    return state;
  }

  @Override
  public void restoreVersion(NodeState version) {
    state = version;
  }
}
