package io.vcorfu.server;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.sequencer.LeaseMarker;
import io.vcorfu.sequencer.ReadLeases;
import io.vcorfu.sequencer.Sequencer;
import io.vcorfu.sequencer.SequencerBootstrap;
import io.vcorfu.sequencer.SequencerService;
import io.vcorfu.sequencer.StreamTail;
import io.vcorfu.server.cluster.ClusterMembership;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sequencer role a node holds, if any: the one its static layout gives it, or, in a cluster,
 * the one each agreed layout that names it the sequencer gives it ({@link #follow}).
 *
 * <p>Invariant: at most one {@link SequencerRole} is open at a time, and a node becoming the
 * sequencer of an epoch either keeps a role that has served (same sequencer, same leases, its epoch
 * advanced; only when no layout came between the one it served and this one) or opens a new one
 * that bootstraps from the replicas and waits out every layout lease and read lease of the layouts
 * before it, a read lease counted from the end of the layout lease under which it may have been
 * granted ({@link SequencerRole#ready()}); a role it stops holding is closed before anything else
 * is opened. Thread-safe for readers; changes come from one thread at a time (the node's layout
 * adoption, or its start).
 *
 * <p>{@link #follow} asks ZooKeeper what it needs before it changes anything: when that fails, it
 * throws with the seat as it was, and the same layout can be followed again (the node's adoption is
 * retried, see {@link ClusterMembership}).
 */
final class SequencerSeat implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SequencerSeat.class);

  private volatile SequencerRole role;

  /** The epoch of the last layout {@link #follow} completed for; -1 before the first. */
  private volatile long followed = -1;

  /**
   * The epoch of the last layout this seat has followed to the end; a layout of a later epoch whose
   * {@link #follow} threw is to be followed again, whatever role the seat still holds.
   */
  long followed() {
    return followed;
  }

  /** The role held now; null when this node is not the sequencer. */
  SequencerRole role() {
    return role;
  }

  /** Takes {@code opened} as the role (a static layout's, opened once at start). */
  void hold(SequencerRole opened) {
    close();
    role = opened;
  }

  /**
   * Cluster mode: keeps, opens or closes the role for the agreed layout {@code next} ({@code mine}:
   * it names {@code me} the sequencer; {@code follows}: it is the layout committed right after the
   * one this node adopted last, so no layout this node missed came in between).
   *
   * <p>A role that has served is kept when {@code next} follows directly, and serves the new epoch
   * at once: no other node was the sequencer in between, what it issued is still what it knows, and
   * it keeps its own read leases. It does not wait for the old layout's leases to run out. A node
   * the new layout left out may still hold its layout lease, up to {@code layoutLease} after the
   * commit, and answer requests of the old epoch, but the bound of every read (a tail, a token, a
   * read lease) comes from this sequencer, which was sealed at the new epoch before the commit and
   * refuses requests of the old one; what such a node can still answer is entries below that bound,
   * each of which it holds as its chain's replicas do, or a slot it lacks, which the reader waits
   * for or repairs through a chain whose other replicas are sealed. (Entries of the new epoch are
   * not on it; a read that needs one learns of the new layout from the sealed nodes.)
   *
   * <p>A new role (this node was not the sequencer of the layout before, or a layout it missed may
   * have named another) rebuilds its tails through {@code peers} and reveals nothing before {@code
   * layoutLease} from now, nor before the read leases an earlier sequencer may have granted have
   * run out: {@code layoutLease} plus the longest lease from now (none when {@code membership}
   * records that no client ever asked for one). Throws, leaving the seat as it was, when ZooKeeper
   * cannot say whether read leases were granted.
   */
  void follow(
      Layout next,
      boolean mine,
      boolean follows,
      Endpoint me,
      ClusterMembership membership,
      RpcClient peers,
      Duration layoutLease) {
    SequencerRole old = role;
    if (!mine) {
      if (old != null) {
        close();
        LOG.info("node {} is no longer the sequencer (epoch {})", me, next.epoch());
      }
      followed = next.epoch();
      return;
    }
    if (follows && old != null && old.ready().isDone() && !old.ready().isCompletedExceptionally()) {
      role = new SequencerRole(old, old.sequencer().advanceEpoch(next.epoch()));
      followed = next.epoch();
      return;
    }
    long notBefore = System.nanoTime() + layoutLease.toNanos();
    // Before anything changes: this may fail (ZooKeeper away), and the layout is then followed
    // again with the seat as it was.
    long leaseWait = leaseWaitMillis(membership, layoutLease);
    // An earlier sequencer of this node that was replaced before it served still knows its
    // streams' tails: floors for the new bootstrap (entries lost with their chains are on no
    // replica, but their slots must not be issued again).
    Map<StreamId, StreamTail> known = Map.of();
    if (old != null) {
      try {
        known = old.sequencer().streamTails().get(1, TimeUnit.SECONDS);
      } catch (Exception notBooted) {
        LOG.debug("node {}: no tails from the earlier sequencer: {}", me, notBooted);
      }
    }
    close();
    SequencerService sequencer = new SequencerService(new Sequencer());
    ReadLeases leases =
        new ReadLeases(
            LeaseMarker.recordedBy(
                System.currentTimeMillis() + leaseWait, until -> membership.recordReadLeases()));
    sequencer.onIssued(leases::issued);
    SequencerRole opened =
        new SequencerRole(
            sequencer,
            leases,
            SequencerBootstrap.atEpoch(new BootstrapPeers(peers, next), next, sequencer, known),
            notBefore);
    role = opened;
    opened.start();
    followed = next.epoch();
    LOG.info("node {} takes over as the sequencer of epoch {}", me, next.epoch());
  }

  /**
   * How long a sequencer that takes over waits for read leases an earlier sequencer may have
   * granted: none when the cluster's clients never asked for one (recorded in ZooKeeper before the
   * first grant), else {@code layoutLease} plus the longest lease. An earlier sequencer removed
   * without being sealed (cut off) goes on granting leases until its own layout lease runs out, up
   * to {@code layoutLease} after this layout was committed, and its holders answer from memory
   * until their leases end, up to {@link ReadLeases#MAX_LEASE} after that.
   */
  private static long leaseWaitMillis(ClusterMembership m, Duration layoutLease) {
    return m.readLeasesGranted() ? layoutLease.toMillis() + ReadLeases.MAX_LEASE.toMillis() : 0;
  }

  /** Closes the role held, if any; the seat is then empty. */
  @Override
  public void close() {
    SequencerRole old = role;
    role = null;
    if (old != null) {
      old.close();
    }
  }
}
