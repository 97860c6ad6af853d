package io.vcorfu.server.cluster;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.proto.GetLayoutRequest;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.PingRequest;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.RemoveNodeRequest;
import io.vcorfu.protocol.proto.RemoveNodeResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.SealRequest;
import io.vcorfu.protocol.proto.SealResponse;
import java.util.concurrent.CompletableFuture;

/**
 * The requests that cross epochs, as the manager and the cluster tools send them: ping, seal,
 * get-layout and remove-node. Each completes with the typed answer or fails with the typed error.
 */
public final class NodeCalls {
  /** The protocol version these requests are stamped with. */
  static final int PROTOCOL_VERSION = 1;

  private final RpcClient rpc;

  public NodeCalls(RpcClient rpc) {
    this.rpc = rpc;
  }

  /** The node's state: its adopted and sealed epochs and whether it serves. */
  public CompletableFuture<PingResponse> ping(Endpoint node) {
    return call(node, Request.newBuilder().setPing(PingRequest.getDefaultInstance()))
        .thenApply(r -> r.getPing());
  }

  /**
   * Seals every epoch below {@code epoch} on {@code node}; completes, once every write the node
   * admitted under an older epoch has finished, with its epoch and its log tail.
   */
  public CompletableFuture<SealResponse> seal(Endpoint node, long epoch) {
    return call(node, Request.newBuilder().setSeal(SealRequest.newBuilder().setEpoch(epoch)))
        .thenApply(r -> r.getSeal());
  }

  /**
   * Asks {@code via} to take {@code leaving} out of the cluster (see {@code RemoveNodeRequest});
   * completes with the layout committed without it.
   */
  public CompletableFuture<RemoveNodeResponse> removeNode(Endpoint via, Endpoint leaving) {
    return call(
            via,
            Request.newBuilder()
                .setRemoveNode(RemoveNodeRequest.newBuilder().setNode(leaving.toString())))
        .thenApply(r -> r.getRemoveNode());
  }

  /** Asks {@code via} to add {@code joining} as a spare (see {@code AddNodeRequest}). */
  public CompletableFuture<io.vcorfu.protocol.proto.AddNodeResponse> addNode(
      Endpoint via, Endpoint joining) {
    return addNode(via, joining, false);
  }

  /**
   * Asks {@code via} to add {@code joining}: as a spare, or with {@code grow} to take a share of
   * the cluster's replicas (see {@code AddNodeRequest}).
   */
  public CompletableFuture<io.vcorfu.protocol.proto.AddNodeResponse> addNode(
      Endpoint via, Endpoint joining, boolean grow) {
    return call(
            via,
            Request.newBuilder()
                .setAddNode(
                    io.vcorfu.protocol.proto.AddNodeRequest.newBuilder()
                        .setNode(joining.toString())
                        .setGrow(grow)))
        .thenApply(r -> r.getAddNode());
  }

  /**
   * Asks {@code via} to make {@code joining} take {@code old}'s places (a drain, see {@code
   * AddNodeRequest.replaces}).
   */
  public CompletableFuture<io.vcorfu.protocol.proto.AddNodeResponse> replaceNode(
      Endpoint via, Endpoint old, Endpoint joining) {
    return call(
            via,
            Request.newBuilder()
                .setAddNode(
                    io.vcorfu.protocol.proto.AddNodeRequest.newBuilder()
                        .setNode(joining.toString())
                        .setReplaces(old.toString())))
        .thenApply(r -> r.getAddNode());
  }

  /**
   * The last global address {@code sequencer} issued (-1 when none), asked at {@code epoch}: a tail
   * query, which issues nothing.
   */
  public CompletableFuture<Long> globalTail(Endpoint sequencer, long epoch) {
    Request.Builder request =
        Request.newBuilder()
            .setHeader(Header.newBuilder().setEpoch(epoch))
            .setTail(io.vcorfu.protocol.proto.TailRequest.getDefaultInstance());
    return call(sequencer, request).thenApply(r -> r.getTail().getGlobalTail());
  }

  /**
   * Asks {@code node} to compact its segments below {@code below} live now (see CompactRequest).
   */
  public CompletableFuture<io.vcorfu.protocol.proto.CompactResponse> compact(
      Endpoint node, double below) {
    return call(
            node,
            Request.newBuilder()
                .setCompact(io.vcorfu.protocol.proto.CompactRequest.newBuilder().setBelow(below)))
        .thenApply(r -> r.getCompact());
  }

  /** The node's state with its storage space (see {@code StorageSpace}). */
  public CompletableFuture<PingResponse> pingWithSpace(Endpoint node) {
    return call(node, Request.newBuilder().setPing(PingRequest.newBuilder().setSpace(true)))
        .thenApply(r -> r.getPing());
  }

  /**
   * Sends {@code trim} to {@code node}'s log replica at {@code epoch}; completes with the mark in
   * force afterwards and the undecided addresses found (see {@code LogTrimRequest}).
   */
  public CompletableFuture<io.vcorfu.protocol.proto.LogTrimResponse> logTrim(
      Endpoint node, long epoch, io.vcorfu.protocol.proto.LogTrimRequest trim) {
    Request.Builder request =
        Request.newBuilder().setHeader(Header.newBuilder().setEpoch(epoch)).setLogTrim(trim);
    return call(node, request).thenApply(r -> r.getLogTrim());
  }

  /**
   * The tail, trim mark and trim floor of every stream {@code node}'s stream replica holds, asked
   * at {@code epoch}.
   */
  public CompletableFuture<io.vcorfu.protocol.proto.StreamTailResponse> streamMarks(
      Endpoint node, long epoch) {
    Request.Builder request =
        Request.newBuilder()
            .setHeader(Header.newBuilder().setEpoch(epoch))
            .setStreamTail(io.vcorfu.protocol.proto.StreamTailRequest.newBuilder().setAll(true));
    return call(node, request).thenApply(r -> r.getStreamTail());
  }

  /** The trim mark of {@code node}'s log replica, asked at {@code epoch}. */
  public CompletableFuture<Long> logTrimMark(Endpoint node, long epoch) {
    Request.Builder request =
        Request.newBuilder()
            .setHeader(Header.newBuilder().setEpoch(epoch))
            .setLogTail(io.vcorfu.protocol.proto.LogTailRequest.getDefaultInstance());
    return call(node, request).thenApply(r -> r.getLogTail().getTrimMark());
  }

  /** The layout {@code node} has adopted, as its JSON document. */
  public CompletableFuture<String> layoutJson(Endpoint node) {
    return call(node, Request.newBuilder().setGetLayout(GetLayoutRequest.getDefaultInstance()))
        .thenApply(r -> r.getGetLayout().getLayoutJson());
  }

  private CompletableFuture<io.vcorfu.protocol.proto.Response> call(
      Endpoint node, Request.Builder request) {
    request.setHeader(request.getHeader().toBuilder().setProtocolVersion(PROTOCOL_VERSION));
    return rpc.call(node, request.build()).thenApply(Errors::check);
  }
}
