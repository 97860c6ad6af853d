package io.vcorfu.client;

import com.google.protobuf.ByteString;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.ChainHead;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainReportMsg;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.VerifyRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Tamper evidence from a client (see {@link ChainDigests}): a stream's chain head that every
 * serving replica of its chain agrees on, to pin; and checks of a stream, or of everything the
 * nodes store, against the digests the replicas stored and against a pinned head.
 *
 * <p>A head is taken from every serving replica of the stream's chain, at a position all of them
 * have decided, and given only when they all agree: a replica whose stored history was altered
 * consistently (bytes and digests rewritten together) has another head, and is named.
 */
public final class ChainChecks {
  private ChainChecks() {}

  /** One node's answer to a check: its reports, or why it gave none. */
  public record NodeReport(Endpoint node, List<ChainReportMsg> reports, Throwable failure) {}

  /** The serving replicas of {@code stream}'s chain disagree on its head at a position. */
  public static final class DisagreementException extends RuntimeException {
    private final transient Map<Endpoint, String> heads;

    DisagreementException(StreamId stream, long at, Map<Endpoint, String> heads) {
      super(
          "the replicas of stream "
              + stream
              + " disagree on its chain head at "
              + at
              + ": "
              + heads
              + "; vcorfu log verify --stream names the damage");
      this.heads = Map.copyOf(heads);
    }

    /** Each replica's head (hex), or why it gave none. */
    public Map<Endpoint, String> heads() {
      return heads;
    }
  }

  /**
   * The head of {@code stream} at {@code at}, or with -1 at the highest position every serving
   * replica of its chain has decided, once all of them agree on it; fails with {@link
   * DisagreementException} when they do not, and with IllegalStateException when one cannot give it
   * (its chain does not reach {@code at} yet, or is not anchored below its trim mark).
   */
  public static CompletableFuture<ChainHead> head(ClusterStreamLog log, StreamId stream, long at) {
    List<Endpoint> replicas = replicasOf(log.layout().current(), stream);
    if (at >= 0) {
      return headsAt(log, replicas, stream, at);
    }
    return all(log, replicas, headOnly(stream, -1))
        .thenCompose(
            answers -> {
              long common = Long.MAX_VALUE;
              for (Map.Entry<Endpoint, ChainReportMsg> a : answers.entrySet()) {
                common =
                    Math.min(common, usable(a.getKey(), stream, a.getValue()).getHeadPosition());
              }
              return headsAt(log, replicas, stream, common);
            });
  }

  /**
   * Each serving replica's full check of {@code stream}: every entry's bytes digested again, the
   * chain computed from its anchor, and compared with {@code pin} when it is not null.
   */
  public static CompletableFuture<List<NodeReport>> verify(
      ClusterStreamLog log, StreamId stream, ChainHead pin) {
    VerifyRequest.Builder r = VerifyRequest.newBuilder().setStream(stream.toMsg());
    if (pin != null) {
      r.setPinPosition(pin.position()).setPinHash(ByteString.copyFrom(pin.hash()));
    }
    return reports(log, replicasOf(log.layout().current(), stream), r);
  }

  /** Every node's full check of everything it stores: the log and every stream. */
  public static CompletableFuture<List<NodeReport>> verifyAll(ClusterStreamLog log) {
    return reports(
        log, sortedNodes(log.layout().current()), VerifyRequest.newBuilder().setAll(true));
  }

  private static CompletableFuture<List<NodeReport>> reports(
      ClusterStreamLog log, List<Endpoint> nodes, VerifyRequest.Builder request) {
    List<CompletableFuture<NodeReport>> asked = new ArrayList<>();
    for (Endpoint n : nodes) {
      asked.add(
          ask(log, n, request)
              .handle(
                  (reports, error) ->
                      new NodeReport(n, error == null ? reports : List.of(), error)));
    }
    return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              List<NodeReport> out = new ArrayList<>();
              asked.forEach(f -> out.add(f.join()));
              return out;
            });
  }

  private static CompletableFuture<ChainHead> headsAt(
      ClusterStreamLog log, List<Endpoint> replicas, StreamId stream, long at) {
    return all(log, replicas, headOnly(stream, at))
        .thenApply(
            answers -> {
              Map<Endpoint, String> heads = new LinkedHashMap<>();
              byte[] agreed = null;
              boolean differ = false;
              for (Map.Entry<Endpoint, ChainReportMsg> a : answers.entrySet()) {
                ChainReportMsg r = usable(a.getKey(), stream, a.getValue());
                if (r.getHeadPosition() < at) {
                  throw new IllegalStateException(
                      "node "
                          + a.getKey()
                          + " has stream "
                          + stream
                          + " decided up to "
                          + r.getHeadPosition()
                          + " only ("
                          + r.getStop()
                          + " after it), not "
                          + at);
                }
                byte[] h = r.getHead().toByteArray();
                heads.put(a.getKey(), ChainDigests.hex(h));
                differ |= agreed != null && !ChainDigests.same(agreed, h);
                agreed = agreed == null ? h : agreed;
              }
              if (differ) {
                throw new DisagreementException(stream, at, heads);
              }
              return new ChainHead(stream, at, agreed);
            });
  }

  private static ChainReportMsg usable(Endpoint node, StreamId stream, ChainReportMsg r) {
    if (!r.getAnchored()) {
      throw new IllegalStateException(
          "node "
              + node
              + " does not know stream "
              + stream
              + "'s chain head below its trim mark "
              + r.getTrimMark()
              + ", so it gives no head");
    }
    return r;
  }

  private static VerifyRequest.Builder headOnly(StreamId stream, long at) {
    return VerifyRequest.newBuilder()
        .setStream(stream.toMsg())
        .setHeadOnly(true)
        .setPinPosition(at);
  }

  private static CompletableFuture<Map<Endpoint, ChainReportMsg>> all(
      ClusterStreamLog log, List<Endpoint> replicas, VerifyRequest.Builder request) {
    Map<Endpoint, CompletableFuture<List<ChainReportMsg>>> asked = new LinkedHashMap<>();
    replicas.forEach(e -> asked.put(e, ask(log, e, request)));
    return CompletableFuture.allOf(asked.values().toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              Map<Endpoint, ChainReportMsg> out = new LinkedHashMap<>();
              asked.forEach((e, f) -> out.put(e, f.join().get(0)));
              return out;
            });
  }

  private static CompletableFuture<List<ChainReportMsg>> ask(
      ClusterStreamLog log, Endpoint node, VerifyRequest.Builder request) {
    return log.ops()
        .call(node, Request.newBuilder().setVerify(request))
        .thenApply(r -> r.getVerify().getReportsList());
  }

  private static List<Endpoint> replicasOf(Layout layout, StreamId stream) {
    List<Endpoint> serving = layout.servingStream(layout.streamChainIndex(stream));
    if (serving.isEmpty()) {
      throw new IllegalStateException("no replica of stream " + stream + "'s chain serves now");
    }
    return serving;
  }

  private static List<Endpoint> sortedNodes(Layout layout) {
    List<Endpoint> nodes = new ArrayList<>(layout.allServers());
    nodes.sort(java.util.Comparator.comparing(Endpoint::toString));
    return nodes;
  }
}
