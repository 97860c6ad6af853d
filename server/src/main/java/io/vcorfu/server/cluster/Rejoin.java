package io.vcorfu.server.cluster;

import io.vcorfu.layout.JoinedChains;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.proto.RebuildProgress;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's side of (re)joining chains as a rebuilding replica: every agreed layout is handed to
 * {@link #follow} before the node serves it.
 *
 * <p>Invariant: before the node serves anything of a layout that names it rebuilding since epoch
 * {@code e}, (1) every uncommitted DATA record it kept from before {@code e} has been replaced by
 * an uncommitted hole, durably, exactly once per join (the join epoch is recorded in {@code
 * DIR/rejoined-epoch} after the purge, so a restart in the middle of a rebuild does not purge what
 * the chains wrote to it since); (2) its replicas follow the rebuilding rules (see {@code
 * JoinState} in the log unit); and (3) a {@link Rebuilder} copies what the chains decided before
 * {@code e}. A layout that no longer names it rebuilding (it was promoted) makes it a full member.
 * A member that joins chains it was not in while it keeps serving its own ({@link
 * Layout#rebuildingChains()}) purges and follows the rebuilding rules for those chains only: their
 * streams (its log addresses there are all new: the join opened a segment above every log tail). A
 * node that takes up stream chains that had no replica does not rebuild; it copies their streams
 * from the log ({@link Takeover}).
 */
public final class Rejoin implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Rejoin.class);

  private final Endpoint self;
  private final ReplicaStore store;
  private final SealedEpoch purgedFor;
  private final Rebuilder rebuilder;
  private final Takeover takeover;
  private volatile PreJoinCopy.Result preJoinCopy = PreJoinCopy.Result.NONE;

  /**
   * @param dataDir the node's data directory, or null for a node that keeps nothing on disk
   */
  public Rejoin(
      Endpoint self, ReplicaStore store, Transport transport, Path dataDir, long bytesPerSecond) {
    this(self, store, transport, dataDir, bytesPerSecond, java.time.Duration.ZERO);
  }

  /**
   * @param dataDir the node's data directory, or null for a node that keeps nothing on disk
   * @param foregroundP99 the foreground 99th percentile the copy slows down to hold (zero: none)
   */
  public Rejoin(
      Endpoint self,
      ReplicaStore store,
      Transport transport,
      Path dataDir,
      long bytesPerSecond,
      java.time.Duration foregroundP99) {
    this.self = self;
    this.store = store;
    this.purgedFor =
        dataDir == null
            ? SealedEpoch.inMemory()
            : SealedEpoch.open(dataDir.resolve("rejoined-epoch"));
    this.takeover =
        new Takeover(
            self,
            store,
            transport,
            dataDir == null
                ? SealedEpoch.inMemory()
                : SealedEpoch.open(dataDir.resolve("took-up-epoch")),
            bytesPerSecond,
            java.util.concurrent.TimeUnit.NANOSECONDS.toMicros(foregroundP99.toNanos()));
    this.rebuilder =
        new Rebuilder(
            self,
            store,
            transport,
            bytesPerSecond,
            java.util.concurrent.TimeUnit.NANOSECONDS.toMicros(foregroundP99.toNanos()));
  }

  /**
   * Before the node serves anything: when the agreed layout lists it as removed and the manager
   * would join it again, copies the streams of the chains it would rejoin ({@link PreJoinCopy}).
   */
  public void copyBeforeJoining(Transport transport, ClusterConfig config) {
    preJoinCopy = PreJoinCopy.run(self, store, transport, config);
  }

  /** What {@link #copyBeforeJoining} did ({@link PreJoinCopy.Result#NONE} before or when none). */
  public PreJoinCopy.Result preJoinCopy() {
    return preJoinCopy;
  }

  /** Follows {@code layout}; call before the node serves it. */
  public synchronized void follow(Layout layout) {
    long since = layout.rebuilding().getOrDefault(self, 0L);
    JoinedChains joined = layout.rebuildingChains().get(self);
    if (since > 0 && store.joinedAt() != since) {
      if (purgedFor.get() < since) {
        long purged =
            joined == null
                ? store.purgeUncommittedData()
                : store.purgeUncommittedData(rebuiltStreams(layout, joined), false);
        purgedFor.raise(since);
        LOG.info(
            "node {} joins {} as a rebuilding replica at epoch {}; {} uncommitted entries"
                + " it kept from before were replaced by holes",
            self,
            joined == null ? "its chains" : "chains (" + joined + ")",
            since,
            purged);
      }
    } else if (since == 0 && store.joinedAt() != 0) {
      LOG.info(
          "node {} is a full member of its chains again (promoted at epoch {})",
          self,
          layout.epoch());
      store.joinedAt(0);
    }
    if (since > 0) {
      if (joined == null) {
        store.joinedAt(since);
      } else {
        // Predicates over this layout: while it rebuilds, chains keep their indexes.
        store.joinedAt(since, rebuiltLog(layout, joined), rebuiltStreams(layout, joined));
      }
    }
    rebuilder.follow(layout);
    takeover.follow(layout);
  }

  /** The log addresses of the chains {@code joined} names, by {@code layout}'s segments. */
  private static java.util.function.LongPredicate rebuiltLog(Layout layout, JoinedChains joined) {
    return a -> {
      if (a < joined.from()) {
        return false;
      }
      Segment s = layout.segmentOf(a);
      return joined.covers(s, true, (int) (a % s.log().size()));
    };
  }

  /** The streams placed on the stream chains {@code joined} names, by {@code layout}. */
  private static java.util.function.Predicate<io.vcorfu.protocol.StreamId> rebuiltStreams(
      Layout layout, JoinedChains joined) {
    return stream -> joined.stream().contains(layout.streamChainIndex(stream));
  }

  /** The copy from the log of stream chains this node took up; null when none is under way. */
  public RebuildProgress takeoverProgress() {
    return takeover.progress();
  }

  /** Slots copied from the log for stream chains this node took up, since it started. */
  public long takenUpFromLog() {
    return takeover.copied();
  }

  /** The rebuild's progress; null when this node is not rebuilding. */
  public RebuildProgress progress() {
    return rebuilder.progress();
  }

  /** The last rebuild that finished on this node, kept after promotion; null when none did. */
  public RebuildProgress lastRebuild() {
    return rebuilder.lastFinished();
  }

  @Override
  public void close() {
    rebuilder.close();
    takeover.close();
  }
}
