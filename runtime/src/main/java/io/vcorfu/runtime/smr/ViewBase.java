package io.vcorfu.runtime.smr;

import io.vcorfu.runtime.checkpoint.CheckpointImage;
import java.util.List;

/**
 * Where a view starts: the state that reflects every update of the stream up to global address
 * {@code version}, given as the updates that rebuild it from the class's initial state, or as a
 * checkpoint {@code image} of the object's fields (restored first) followed by those updates, with
 * the stream already consumed below stream address {@code streamPos}. Versions older than the base
 * cannot be served.
 */
public record ViewBase(
    long version, long streamPos, List<SmrRecord.Update> state, CheckpointImage image) {
  /** The class's initial state, before any write. */
  public static final ViewBase INITIAL = new ViewBase(-1, 0, List.of());

  /** A base given as updates only; with an {@code image}, its fields are restored before them. */
  public ViewBase(long version, long streamPos, List<SmrRecord.Update> state) {
    this(version, streamPos, state, null);
  }
}
