package io.vcorfu.client;

import java.util.Objects;

/**
 * What the sequencer knows of the snapshots clients hold: the oldest one registered ({@link
 * Long#MAX_VALUE} when none), and whether it has known the registrations for a whole lease (a
 * sequencer that just started has not: trims wait until it has); and the cluster's retention, which
 * runtimes without their own follow.
 */
public record SnapshotFloor(long oldestRegistered, boolean complete, ClusterRetention retention) {
  /** A log that registers nothing: no snapshot held anywhere, known for certain. */
  public static final SnapshotFloor NONE =
      new SnapshotFloor(Long.MAX_VALUE, true, ClusterRetention.NONE);

  public SnapshotFloor {
    Objects.requireNonNull(retention, "retention");
  }

  /** A floor without a cluster retention. */
  public SnapshotFloor(long oldestRegistered, boolean complete) {
    this(oldestRegistered, complete, ClusterRetention.NONE);
  }
}
