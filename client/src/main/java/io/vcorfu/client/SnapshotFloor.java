package io.vcorfu.client;

/**
 * What the sequencer knows of the snapshots clients hold: the oldest one registered ({@link
 * Long#MAX_VALUE} when none), and whether it has known the registrations for a whole lease (a
 * sequencer that just started has not: trims wait until it has).
 */
public record SnapshotFloor(long oldestRegistered, boolean complete) {
  /** A log that registers nothing: no snapshot held anywhere, known for certain. */
  public static final SnapshotFloor NONE = new SnapshotFloor(Long.MAX_VALUE, true);
}
