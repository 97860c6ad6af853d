package io.vcorfu.server;

import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.concurrent.CompletableFuture;

/**
 * The writer a sequencer node drives the appends it takes whole with ({@link SequencedWrites}): one
 * {@link ChainWriter} per layout epoch, so the commits of every append ride on the next write to
 * each node whoever sent the append, over a client that reaches this node's own replicas in process
 * (through its request handler, epoch check and fence included) and the other nodes over one
 * pipelined connection each. The writes to one node that wait behind its busy messages (at most two
 * in flight per node) go out together, one message carrying many appends' copies, each handled
 * there as if sent alone ({@code ChainWriteRequest.batch}).
 *
 * <p>The drive is the one a client's writer runs: every copy at once, uncommitted; committed once
 * every copy holds the entry; a decision when a copy is found taken, trimmed or sealed.
 * Thread-safe.
 */
final class AppendDrivers {
  /** The client id the drives' requests carry. */
  static final StreamId DRIVER_ID = StreamId.of("sequencer-node-appends");

  private final LocalFirst rpc;

  private record Driver(long epoch, ReplicaClient ops, ChainWriter writer) {}

  private volatile Driver current;

  /**
   * Drives through {@code peers} to other nodes and through {@code local} (this node's request
   * handler) to {@code me}.
   */
  AppendDrivers(Endpoint me, RpcHandler local, RpcClient peers) {
    this.rpc = new LocalFirst(me, local, peers);
  }

  /** The writer for appends taken under {@code layout}. */
  ChainWriter writerFor(Layout layout) {
    return driverFor(layout).writer();
  }

  /**
   * What decides the log's addresses its prefix trim finds undecided under {@code layout}, with
   * this epoch's writer.
   */
  io.vcorfu.server.cluster.LogDecisions decisionsFor(Layout layout) {
    Driver d = driverFor(layout);
    return new io.vcorfu.server.cluster.LogDecisions(d.ops(), d.writer());
  }

  private Driver driverFor(Layout layout) {
    Driver d = current;
    if (d != null && d.epoch() == layout.epoch()) {
      return d;
    }
    synchronized (this) {
      d = current;
      if (d == null || d.epoch() != layout.epoch()) {
        ReplicaClient ops =
            new ReplicaClient(new EpochRpc(rpc, LayoutCache.of(rpc, layout), DRIVER_ID), true);
        d = new Driver(layout.epoch(), ops, new ChainWriter(ops));
        current = d;
      }
      return d;
    }
  }

  /** Requests to this node go to its handler directly, the rest over the node's peer client. */
  private record LocalFirst(Endpoint me, RpcHandler local, RpcClient peers) implements RpcClient {
    @Override
    public CompletableFuture<Response> call(Endpoint target, Request request) {
      if (!target.equals(me)) {
        return peers.call(target, request);
      }
      try {
        return local.handle(request);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    @Override
    public void close() {
      // not this client's to close
    }
  }
}
