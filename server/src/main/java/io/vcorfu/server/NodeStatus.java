package io.vcorfu.server;

import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.LogReplica;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StreamReplica;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.server.cluster.Rejoin;
import java.util.concurrent.CompletableFuture;

/**
 * What a node reports about itself: its answer to a ping (its epochs, whether it serves and why
 * not, rebuild and takeover progress, its foreground write latency and, when asked, how its storage
 * uses its disk), and the tails its replicas and the cluster's sequencer report now; and a ping of
 * another node through its client. Reads the node's parts as they are at the call and changes
 * nothing.
 */
final class NodeStatus {
  private final Node node;

  /** The reports of {@code node}. */
  NodeStatus(Node node) {
    this.node = node;
  }

  /** The node's answer to a ping, with its storage space when {@code withSpace}. */
  Response pingResponse(Endpoint me, boolean withSpace) {
    Response r = pingResponse(me);
    if (!withSpace) {
      return r;
    }
    return r.toBuilder().setPing(r.getPing().toBuilder().setSpace(space())).build();
  }

  /**
   * How this node's storage uses its disk, and the lowest global address the log must keep for its
   * streams (0 while it rebuilds or copies streams from the log: it cannot tell yet).
   */
  io.vcorfu.protocol.proto.StorageSpace space() {
    ReplicaStore s = node.store;
    Rejoin r = node.rejoin;
    io.vcorfu.protocol.proto.RebuildProgress takeover = r == null ? null : r.takeoverProgress();
    boolean copying = s != null && (s.joinedAt() != 0 || (takeover != null && !takeover.getDone()));
    return NodeStorage.space(s, copying, node.diskAlarm);
  }

  private Response pingResponse(Endpoint me) {
    Layout l = node.layout.get();
    io.vcorfu.server.cluster.LatencyWindow.Snapshot writes =
        node.gate.foregroundWrites().snapshot();
    String why = node.clustered() ? node.adoption.notServingReason(me) : null;
    return Response.newBuilder()
        .setPing(
            PingResponse.newBuilder()
                .setNodeId(String.valueOf(me))
                .setEpoch(l == null ? 0 : l.epoch())
                .setSealedEpoch(node.fence.epoch())
                .setServing(why == null)
                .setNotServingReason(why == null ? "" : why)
                .setUntrusted(node.clustered() && node.adoption.foreign())
                .setLayoutConfirmed(
                    node.membership != null
                        && l != null
                        && node.membership.lease().whyNotValid() == null)
                .setCluster(node.clustered() ? node.config.cluster().name() : "")
                .setManager(node.manager == null ? "" : node.manager.participant())
                .setManaging(node.managing())
                .setForegroundWrites(writes.requests())
                .setForegroundP99Micros(writes.p99Micros())
                .setRebuild(rebuildProgress())
                .setTakeover(takeoverProgress()))
        .build();
  }

  private io.vcorfu.protocol.proto.RebuildProgress takeoverProgress() {
    Rejoin r = node.rejoin;
    io.vcorfu.protocol.proto.RebuildProgress p = r == null ? null : r.takeoverProgress();
    return p == null ? io.vcorfu.protocol.proto.RebuildProgress.getDefaultInstance() : p;
  }

  private io.vcorfu.protocol.proto.RebuildProgress rebuildProgress() {
    Rejoin r = node.rejoin;
    io.vcorfu.protocol.proto.RebuildProgress p = r == null ? null : r.progress();
    return p == null ? io.vcorfu.protocol.proto.RebuildProgress.getDefaultInstance() : p;
  }

  /** The highest global address this node's log replica holds; -1 when none or no replica. */
  long logTail() {
    LogReplica r = node.logReplica;
    if (r == null) {
      return -1;
    }
    try {
      return r.tail(io.vcorfu.protocol.proto.LogTailRequest.getDefaultInstance())
          .get(2, java.util.concurrent.TimeUnit.SECONDS)
          .getTail();
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * The last global address the cluster's sequencer issued (-1 when none), as it answers within
   * half a second; null when it does not.
   */
  Long globalTail() {
    Layout l = node.layout.get();
    RpcClient client = node.peers;
    if (l == null || client == null) {
      return null;
    }
    try {
      return new io.vcorfu.server.cluster.NodeCalls(client)
          .globalTail(l.sequencer(), l.epoch())
          .get(500, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      return null;
    }
  }

  /**
   * Every stream this node's stream replica holds, in id order, with its tail (the highest stream
   * address held) and trim mark; null when the node holds no stream replica or it does not answer.
   */
  io.vcorfu.protocol.proto.StreamTailResponse streamTails() {
    StreamReplica r = node.streamReplica;
    if (r == null) {
      return null;
    }
    try {
      return r.tail(io.vcorfu.protocol.proto.StreamTailRequest.newBuilder().setAll(true).build())
          .get(2, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      return null;
    }
  }

  /** {@code other}'s answer to a ping, asked through this node's client. */
  CompletableFuture<PingResponse> ping(Endpoint other) {
    RpcClient client = node.peers;
    if (client == null) {
      return CompletableFuture.failedFuture(
          new io.vcorfu.protocol.NotServingException("node", "node has not started"));
    }
    return new io.vcorfu.server.cluster.NodeCalls(client).ping(other);
  }
}
