package io.vcorfu.server;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.Versioned;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.server.cluster.ClusterMembership;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a node's layout and epoch move forward: sealing on request, and in cluster mode adopting each
 * layout the cluster agrees on ({@link #adopt}); and, from what it adopted, whether the node serves
 * role requests ({@link #notServingReason}). Works on the node's layout, fence, layout store and
 * roles.
 *
 * <p>Sealing: a {@code Seal{epoch}} request (any role honours it) raises this node's epoch. The
 * node records the new epoch in its layout store first (when it has a data directory, so the seal
 * survives its restarts: a restarted node serves the stored layout when its epoch is newer than the
 * layout file's), then rejects requests stamped with an older epoch and, through its {@link
 * io.vcorfu.layout.EpochFence}, writes of entries whose token was issued in an older epoch; it
 * answers once every write admitted under an older epoch has finished.
 *
 * <p>Seals and adoptions run one at a time (this object's monitor).
 */
final class LayoutAdoption {
  // Logged as the node: its seals and adoptions have always come under the node's logger name.
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);

  private final Node node;

  /**
   * Cluster mode: why the latest agreed layout does not trust this node's data (it records another
   * incarnation of it, or none yet); null when it does. Judged on every layout delivered.
   */
  private volatile String untrusted = "no layout has been delivered yet";

  /** Cluster mode: true when the latest agreed layout records another incarnation of this node. */
  private volatile boolean foreign;

  /**
   * Cluster mode: why the layout last delivered is not adopted yet (its adoption failed and is
   * retried, see {@link ClusterMembership}); null once it is.
   */
  private volatile String adoptionFailed;

  /**
   * Cluster mode: the epoch of the first layout this process was delivered; it takes the sequencer
   * role only at a later epoch, so that no token an earlier run of it issued can still be written.
   */
  private long firstEpoch = -1;

  /**
   * Cluster mode: the znode version of the last layout this node adopted (-1: none yet). A layout
   * delivered at the next version follows it directly: no layout was committed in between that this
   * node did not see, so no other node can have been the sequencer in between.
   */
  private long adoptedVersion = -1;

  /** The seals and adoptions of {@code node}. */
  LayoutAdoption(Node node) {
    this.node = node;
  }

  /** Cluster mode: true when the latest agreed layout records another incarnation of this node. */
  boolean foreign() {
    return foreign;
  }

  /**
   * Seals every epoch below {@code epoch}: records it durably, then serves it, and answers once
   * every write admitted under an older epoch has finished (see the class comment).
   */
  synchronized CompletableFuture<Response> seal(long epoch) {
    if (node.clustered()) {
      return sealClustered(epoch);
    }
    Layout current = node.layout.get();
    if (current == null) {
      return CompletableFuture.failedFuture(new io.vcorfu.protocol.NotServingException("layout"));
    }
    if (epoch > current.epoch()) {
      Layout next = current.withEpoch(epoch);
      if (node.layoutStore != null) {
        Versioned<Layout> v = node.storedLayout();
        node.layoutStore
            .compareAndSet(v == null ? LayoutStore.NO_VERSION : v.version(), next)
            .join();
      }
      node.layout.set(next);
      node.layoutWaiters.adopted(next);
      current = next;
      LOG.info("node {} sealed every epoch below {}", node.binding.endpoint(), epoch);
    }
    long now = current.epoch();
    return node.fence
        .seal(now)
        .thenApply(
            v ->
                Response.newBuilder()
                    .setSeal(io.vcorfu.protocol.proto.SealResponse.newBuilder().setEpoch(now))
                    .build());
  }

  /** Cluster mode: why this node does not serve role requests now; null when it does. */
  String notServingReason(Endpoint me) {
    Layout l = node.layout.get();
    if (l == null) {
      return "node " + me + " has no layout of cluster " + node.config.cluster().name() + " yet";
    }
    long sealed = node.fence.epoch();
    if (sealed > l.epoch()) {
      return "node " + me + " is sealed at epoch " + sealed + " and waits for that epoch's layout";
    }
    if (!l.allServers().contains(me)) {
      return "node "
          + me
          + " is not in the layout of epoch "
          + l.epoch()
          + (l.removed().contains(me) ? " (it was removed)" : "");
    }
    String failed = adoptionFailed;
    if (failed != null) {
      return failed;
    }
    String distrust = untrusted;
    if (distrust != null) {
      return distrust;
    }
    ClusterMembership m = node.membership;
    String lease = m == null ? "it has not joined its cluster yet" : m.lease().whyNotValid();
    return lease == null ? null : "node " + me + " does not serve: " + lease;
  }

  /**
   * Cluster mode: seals every epoch below {@code epoch}, recording it durably first; answers once
   * every write admitted under an older epoch has finished, with this node's epoch, log tail and
   * the highest global address any of its replicas holds.
   */
  private CompletableFuture<Response> sealClustered(long epoch) {
    if (epoch > node.sealedEpoch.get()) {
      node.sealedEpoch.raise(epoch);
      LOG.info("node {} sealed every epoch below {}", node.binding.endpoint(), epoch);
    }
    return node.fence
        .seal(epoch)
        .thenCompose(
            v -> node.logReplica.tail(io.vcorfu.protocol.proto.LogTailRequest.getDefaultInstance()))
        .thenApply(
            t ->
                Response.newBuilder()
                    .setSeal(
                        io.vcorfu.protocol.proto.SealResponse.newBuilder()
                            .setEpoch(node.fence.epoch())
                            .setLogTail(t.getTail())
                            .setMaxGlobal(node.store == null ? -1 : node.store.maxGlobal()))
                    .build());
  }

  /**
   * Cluster mode: adopts an agreed layout (see {@link ClusterMembership.Follower#adopt}). A newer
   * epoch is recorded durably and sealed before it is served. The sequencer role follows the
   * layout: kept (with its tails and leases) when this node stays the sequencer, bootstrapped when
   * it becomes the sequencer, closed when it stops being it. A process that finds itself the
   * sequencer of the layout it starts with first commits that layout at the next epoch, fencing any
   * token an earlier run of it issued; it takes the role when that epoch arrives.
   *
   * <p>When a step fails (the layout cannot be recorded in the data directory, ZooKeeper does not
   * answer the new sequencer) it throws, and the membership hands the same layout over again later;
   * every step is safe to repeat. Until the adoption succeeds the node serves no role request (see
   * {@link #notServingReason}), whatever its layout lease says.
   */
  synchronized void adopt(Layout next, long version, boolean initial) {
    try {
      adoptOrThrow(next, version, initial);
      adoptionFailed = null;
    } catch (RuntimeException e) {
      adoptionFailed =
          "node "
              + node.binding.endpoint()
              + " has not adopted the layout of epoch "
              + next.epoch()
              + " yet (it tries again): "
              + e;
      throw e;
    }
  }

  private void adoptOrThrow(Layout next, long version, boolean initial) {
    Endpoint me = node.binding.endpoint();
    Layout current = node.layout.get();
    if (!next.clusterId().equals(node.config.cluster().name())) {
      LOG.error(
          "node {} ignores a layout of cluster '{}': it belongs to cluster '{}'",
          me,
          next.clusterId(),
          node.config.cluster().name());
      return;
    }
    if (current != null && next.epoch() < current.epoch()) {
      LOG.warn(
          "node {} ignores the layout of epoch {}: it has adopted epoch {}",
          me,
          next.epoch(),
          current.epoch());
      return;
    }
    boolean newer = current == null || next.epoch() > current.epoch();
    // Every layout delivered, newer or not (a claim changes the layout, not its epoch), says
    // whether this node's data is the data the cluster counts on.
    untrusted = node.identity.whyNotTrusted(next);
    foreign = next.incarnations().containsKey(me) && untrusted != null;
    if (foreign) {
      LOG.warn("node {}: {}", me, untrusted);
    }
    Layout claimed = node.identity.claim(next);
    if (newer) {
      if (node.layoutStore != null) {
        Versioned<Layout> v = node.storedLayout();
        node.layoutStore
            .compareAndSet(v == null ? LayoutStore.NO_VERSION : v.version(), next)
            .join();
      }
      node.sealedEpoch.raise(next.epoch());
      node.fence.seal(next.epoch());
      node.rejoin.follow(next);
      node.layout.set(next);
      node.layoutWaiters.adopted(next);
      LOG.info(
          "node {} adopted the layout of epoch {} (sequencer {}{})",
          me,
          next.epoch(),
          next.sequencer(),
          next.allServers().contains(me) ? "" : "; this node is not in it");
      node.adopted.record(current, next);
    }
    if (!newer) {
      // A change at the same epoch (a claimed incarnation, a spare added) names the same chains:
      // served as it is, and handed out as the newest layout. After a restart the first layout
      // delivered may be the one the node had stored: a rebuild it was doing resumes here.
      node.rejoin.follow(next);
      node.layout.set(next);
    }
    if (initial) {
      firstEpoch = next.epoch();
    }
    boolean mine = next.sequencer().equals(me);
    if (mine && next.epoch() <= firstEpoch) {
      // Also when an earlier attempt lost its compare-and-set (to a claim, say): every delivery
      // of the first epoch tries again, until a later epoch arrives.
      node.sequencerSeat.close();
      LOG.info(
          "node {} starts as the sequencer of epoch {}: committing epoch {} first, so that no"
              + " token an earlier run issued can be written",
          me,
          next.epoch(),
          next.epoch() + 1);
      propose(LayoutChanges.nextEpoch(claimed != null ? claimed : next), version);
    } else {
      if (claimed != null) {
        LOG.info(
            "node {} records its data directory incarnation {} in the layout of epoch {}",
            me,
            node.identity.incarnation(),
            next.epoch());
        propose(claimed, version);
      }
      // Also when an earlier delivery of this layout was adopted but the seat's follow threw (the
      // seat still holds what it held before).
      if (newer
          || (mine && node.sequencerSeat.role() == null)
          || node.sequencerSeat.followed() < next.epoch()) {
        boolean follows = adoptedVersion >= 0 && version == adoptedVersion + 1;
        node.sequencerSeat.follow(
            next,
            mine,
            follows,
            me,
            node.membership,
            node.peers,
            node.config.cluster().layoutLease());
      }
    }
    adoptedVersion = version;
    node.dispatcher = node.clusterDispatcher(me);
  }

  /**
   * Cluster mode: compare-and-sets {@code next} at znode version {@code version}; a lost race is
   * only logged (the winner's layout is delivered next, and judged again).
   */
  private void propose(Layout next, long version) {
    Endpoint me = node.binding.endpoint();
    node.membership
        .store()
        .compareAndSet(version, next)
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                LOG.info(
                    "node {}: layout of epoch {} not committed: {}",
                    me,
                    next.epoch(),
                    e.toString());
              }
            });
  }
}
