package io.vcorfu.runtime;

import io.vcorfu.client.ClusterRetention;
import java.time.Duration;
import java.util.Objects;

/**
 * How a runtime keeps the objects it has open bounded: automatic checkpoints, and the history it
 * keeps readable when it trims their streams below a checkpoint.
 *
 * <p>A live local view is checkpointed once the updates played since its last checkpoint weigh at
 * least {@code max(checkpointMinBytes, size of that checkpoint)}: writing checkpoints costs at most
 * about as much as the updates themselves, and a view opened later reads one checkpoint and at most
 * about that much of the stream. After each checkpoint the object's stream is trimmed below the
 * newest checkpoint that leaves at least {@code retainVersions} updates of the object, and at least
 * {@code retainTime} of its history, readable after it (snapshot views and transactions as of those
 * versions keep working; older ones fail with {@link io.vcorfu.protocol.TrimmedException}); its
 * checkpoint stream is trimmed below that checkpoint.
 *
 * <p>The default checkpoints from 64 KiB of updates and keeps the last 20 updates of every object
 * and no minimum time: history stays bounded by the number of objects, whatever the update rate (an
 * object keeps between 20 updates and 20 plus about a checkpoint's worth), short transactions and
 * recent snapshots still find their versions (running ones are registered and never trimmed under),
 * and checkpoints add at most about a sixth to the bytes written for small objects. Raise {@code
 * retainVersions} or set {@code retainTime} to keep more history; {@link #KEEP_ALL} turns trimming
 * off (checkpoints are still written).
 *
 * <p>Which retention an object gets: its own, when one was set for it ({@link
 * ObjectBuilder#retention}, {@link VCorfuRuntime#retain}); else the runtime's, when it is not
 * {@link #DEFAULT}; else the default with the cluster's values where the cluster set them ({@link
 * #following}, {@code vcorfu cluster retention}).
 *
 * @param autoCheckpoint whether live views are checkpointed (and their streams trimmed) at all
 * @param checkpointMinBytes the least weight of updates between two checkpoints of an object
 * @param retainVersions the least number of an object's latest updates kept readable
 * @param retainTime the least age of history kept readable (zero: no minimum)
 * @param trim whether streams are trimmed after checkpoints
 */
public record Retention(
    boolean autoCheckpoint,
    long checkpointMinBytes,
    long retainVersions,
    Duration retainTime,
    boolean trim) {

  /** Checkpoints from 64 KiB of updates, the last 20 updates of each object kept. */
  public static final Retention DEFAULT = new Retention(true, 64 << 10, 20, Duration.ZERO, true);

  /** Checkpoints as {@link #DEFAULT}, nothing ever trimmed. */
  public static final Retention KEEP_ALL = new Retention(true, 64 << 10, 20, Duration.ZERO, false);

  /** No automatic checkpoints and no trims: objects keep their whole history. */
  public static final Retention OFF = new Retention(false, 64 << 10, 20, Duration.ZERO, false);

  public Retention {
    Objects.requireNonNull(retainTime, "retainTime");
    if (checkpointMinBytes < 1) {
      throw new IllegalArgumentException(
          "checkpoints need at least 1 byte of updates between them, not " + checkpointMinBytes);
    }
    if (retainVersions < 0) {
      throw new IllegalArgumentException(
          "the updates kept readable cannot be negative, not " + retainVersions);
    }
    if (retainTime.isNegative()) {
      throw new IllegalArgumentException(
          "the history kept readable cannot be negative, not " + retainTime);
    }
  }

  /**
   * The retention a runtime keeps given its cluster's: a runtime left at {@link #DEFAULT} takes the
   * cluster's {@code retainVersions} and {@code retainTime} where the cluster set them (see {@code
   * vcorfu cluster retention}); a runtime given any other retention keeps its own.
   */
  public Retention following(ClusterRetention cluster) {
    if (!equals(DEFAULT) || !cluster.isSet()) {
      return this;
    }
    Retention r = this;
    if (cluster.retainVersions() >= 0) {
      r = r.withRetainVersions(cluster.retainVersions());
    }
    if (cluster.retainTime() != null) {
      r = r.withRetainTime(cluster.retainTime());
    }
    return r;
  }

  /** This retention keeping at least {@code n} updates of each object readable. */
  public Retention withRetainVersions(long n) {
    return new Retention(autoCheckpoint, checkpointMinBytes, n, retainTime, trim);
  }

  /** This retention keeping at least {@code d} of history readable. */
  public Retention withRetainTime(Duration d) {
    return new Retention(autoCheckpoint, checkpointMinBytes, retainVersions, d, trim);
  }

  /** This retention checkpointing once at least {@code bytes} of updates were played. */
  public Retention withCheckpointMinBytes(long bytes) {
    return new Retention(autoCheckpoint, bytes, retainVersions, retainTime, trim);
  }
}
