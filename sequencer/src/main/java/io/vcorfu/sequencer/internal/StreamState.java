package io.vcorfu.sequencer.internal;

/** The sequencer's mutable knowledge of one stream. Not thread-safe; owned by the sequencer. */
public final class StreamState {
  /** Last issued stream address, -1 when none. */
  public long tail = -1;

  /** Global address of the stream's last entry (the next entry's backpointer), -1 when none. */
  public long lastGlobal = -1;

  /** Highest global address of any write (whole-object or keyed) to the stream, -1 when none. */
  public long lastAnyWrite = -1;

  /** Highest global address of a whole-object write to the stream, -1 when none. */
  public long lastWholeWrite = -1;

  /** Highest address of a keyed write whose key was evicted from the key cache, -1 when none. */
  public long evictedWatermark = -1;
}
