package io.vcorfu.runtime;

import io.vcorfu.client.ClusterRetention;
import java.time.Duration;
import java.util.Objects;

/**
 * How a runtime keeps the objects it has open bounded: automatic checkpoints, and the history it
 * keeps readable when it trims their streams below a checkpoint.
 *
 * <p>A live local view is due for a checkpoint once the updates played since its last checkpoint
 * weigh at least {@code max(checkpointMinBytes, size of that checkpoint)}: writing checkpoints
 * costs at most about as much as the updates themselves. Due views are checkpointed only while the
 * updates since their checkpoints, summed over every view of the runtime under this retention,
 * weigh at least {@code historyBudgetBytes}, the largest first until the sum is below it (a
 * database lets its log grow to a size before it compacts it, for the same reason): a small data
 * set is not rewritten as often as it is updated, at the price of at most that much more history on
 * disk. A view opened later reads one checkpoint and the object's updates since it. After each
 * checkpoint the object's stream is trimmed below the newest checkpoint that leaves at least {@code
 * retainVersions} updates of the object, and at least {@code retainTime} of its history, readable
 * after it (snapshot views and transactions as of those versions keep working; older ones fail with
 * {@link io.vcorfu.protocol.TrimmedException}); its checkpoint stream is trimmed below that
 * checkpoint.
 *
 * <p>The default checkpoints from 64 KiB of updates once a runtime's objects have 64 MiB of updates
 * since their checkpoints, and keeps the last 20 updates of every object and no minimum time:
 * history stays bounded by the number of objects and the budget, whatever the update rate (an
 * object keeps its last 20 updates plus what it gathered since its checkpoint), short transactions
 * and recent snapshots still find their versions (running ones are registered and never trimmed
 * under), and a data set much smaller than the budget writes checkpoints of about its own size per
 * budget's worth of updates. Raise {@code retainVersions} or set {@code retainTime} to keep more
 * history; {@link #KEEP_ALL} turns trimming off (checkpoints are still written).
 *
 * <p>Which retention an object gets: its own, when one was set for it ({@link
 * ObjectBuilder#retention}, {@link VCorfuRuntime#retain}); else the runtime's, when it keeps a
 * history other than {@link #DEFAULT}'s; else the runtime's with the cluster's values where the
 * cluster set them ({@link #following}, {@code vcorfu cluster retention}).
 *
 * @param autoCheckpoint whether live views are checkpointed (and their streams trimmed) at all
 * @param checkpointMinBytes the least weight of updates between two checkpoints of an object
 * @param historyBudgetBytes the weight of updates since their checkpoints that a runtime's views
 *     under this retention gather in all before any is checkpointed (0: each view on its own)
 * @param retainVersions the least number of an object's latest updates kept readable
 * @param retainTime the least age of history kept readable (zero: no minimum)
 * @param trim whether streams are trimmed after checkpoints
 */
public record Retention(
    boolean autoCheckpoint,
    long checkpointMinBytes,
    long historyBudgetBytes,
    long retainVersions,
    Duration retainTime,
    boolean trim) {

  /** The default {@link #historyBudgetBytes}: 64 MiB (as Redis's append-only file floor). */
  public static final long DEFAULT_HISTORY_BUDGET_BYTES = 64L << 20;

  /**
   * Checkpoints from 64 KiB of updates once the runtime's objects gathered 64 MiB since their
   * checkpoints, the last 20 updates of each object kept.
   */
  public static final Retention DEFAULT =
      new Retention(true, 64 << 10, DEFAULT_HISTORY_BUDGET_BYTES, 20, Duration.ZERO, true);

  /** Checkpoints as {@link #DEFAULT}, nothing ever trimmed. */
  public static final Retention KEEP_ALL =
      new Retention(true, 64 << 10, DEFAULT_HISTORY_BUDGET_BYTES, 20, Duration.ZERO, false);

  /** No automatic checkpoints and no trims: objects keep their whole history. */
  public static final Retention OFF =
      new Retention(false, 64 << 10, DEFAULT_HISTORY_BUDGET_BYTES, 20, Duration.ZERO, false);

  public Retention {
    Objects.requireNonNull(retainTime, "retainTime");
    if (checkpointMinBytes < 1) {
      throw new IllegalArgumentException(
          "checkpoints need at least 1 byte of updates between them, not " + checkpointMinBytes);
    }
    if (historyBudgetBytes < 0) {
      throw new IllegalArgumentException(
          "the history budget cannot be negative (0 checkpoints each object on its own), not "
              + historyBudgetBytes);
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
   * The retention a runtime keeps given its cluster's: a runtime that keeps {@link #DEFAULT}'s
   * history (checkpoints and trims on, its {@code retainVersions} and {@code retainTime}; how often
   * it checkpoints is its own) takes the cluster's {@code retainVersions} and {@code retainTime}
   * where the cluster set them (see {@code vcorfu cluster retention}); a runtime given another
   * history keeps its own.
   */
  public Retention following(ClusterRetention cluster) {
    if (!keepsDefaultHistory() || !cluster.isSet()) {
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

  private boolean keepsDefaultHistory() {
    return autoCheckpoint == DEFAULT.autoCheckpoint
        && trim == DEFAULT.trim
        && retainVersions == DEFAULT.retainVersions
        && retainTime.equals(DEFAULT.retainTime);
  }

  /** This retention keeping at least {@code n} updates of each object readable. */
  public Retention withRetainVersions(long n) {
    return new Retention(
        autoCheckpoint, checkpointMinBytes, historyBudgetBytes, n, retainTime, trim);
  }

  /** This retention keeping at least {@code d} of history readable. */
  public Retention withRetainTime(Duration d) {
    return new Retention(
        autoCheckpoint, checkpointMinBytes, historyBudgetBytes, retainVersions, d, trim);
  }

  /** This retention checkpointing once at least {@code bytes} of updates were played. */
  public Retention withCheckpointMinBytes(long bytes) {
    return new Retention(
        autoCheckpoint, bytes, historyBudgetBytes, retainVersions, retainTime, trim);
  }

  /**
   * This retention checkpointing due views once the updates since their checkpoints weigh {@code
   * bytes} in all (0: each view as soon as it is due).
   */
  public Retention withHistoryBudgetBytes(long bytes) {
    return new Retention(
        autoCheckpoint, checkpointMinBytes, bytes, retainVersions, retainTime, trim);
  }
}
