package io.vcorfu.sequencer;

/**
 * What the sequencer has issued to one stream and what conditional issuance needs to know of its
 * writes. Not thread-safe; owned by the {@link Sequencer}.
 */
final class StreamIssuance {
  /** Last issued stream address, -1 when none. */
  long tail = -1;

  /** Global address of the stream's last entry (reported with its tail), -1 when none. */
  long lastGlobal = -1;

  /** Highest global address of any write (whole-object or keyed) to the stream, -1 when none. */
  long lastAnyWrite = -1;

  /** Highest global address of a whole-object write to the stream, -1 when none. */
  long lastWholeWrite = -1;

  /** Highest address of a keyed write whose key was evicted from the key cache, -1 when none. */
  long evictedWatermark = -1;
}
