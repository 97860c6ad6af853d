package io.vcorfu.server;

import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.sequencer.SequencerBootstrap;
import io.vcorfu.sequencer.StreamTail;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** What a sequencer's bootstrap asks of the nodes of its layout, over the client's replica RPCs. */
final class BootstrapPeers implements SequencerBootstrap.Peers {
  private final RpcClient peers;
  private final Layout layout;

  BootstrapPeers(RpcClient peers, Layout layout) {
    this.peers = peers;
    this.layout = layout;
  }

  private ReplicaClient opsAt(Layout l) {
    return new ReplicaClient(
        new EpochRpc(peers, LayoutCache.of(peers, l), StreamId.of("sequencer")));
  }

  @Override
  public CompletableFuture<Long> seal(Endpoint node, long epoch) {
    return opsAt(layout).seal(node, epoch);
  }

  @Override
  public CompletableFuture<Long> logTail(Endpoint node, long epoch) {
    return opsAt(layout.withEpoch(epoch)).logTail(node).thenApply(r -> r.getTail());
  }

  @Override
  public CompletableFuture<SequencerBootstrap.StreamReplicaTails> streamTails(
      Endpoint node, long epoch) {
    return opsAt(layout.withEpoch(epoch))
        .streamTail(node, List.of(), true)
        .thenApply(r -> tails(r.getMaxGlobal(), r.getTailsList()));
  }

  @Override
  public CompletableFuture<SequencerBootstrap.StreamReplicaTails> logStreamTails(
      Endpoint node, long epoch) {
    return opsAt(layout.withEpoch(epoch))
        .logTail(node, true)
        .thenApply(
            r -> {
              SequencerBootstrap.StreamReplicaTails t = tails(r.getTail(), r.getStreamsList());
              return new SequencerBootstrap.StreamReplicaTails(
                  t.maxGlobal(), t.streams(), List.copyOf(r.getLostList()), r.getLostTotal());
            });
  }

  private static SequencerBootstrap.StreamReplicaTails tails(
      long maxGlobal, List<StreamTailEntry> entries) {
    Map<StreamId, StreamTail> tails = new HashMap<>();
    for (StreamTailEntry t : entries) {
      tails.merge(
          StreamId.fromMsg(t.getStream()),
          new StreamTail(t.getTail(), t.getLastGlobal()),
          (a, b) -> a.tail() >= b.tail() ? a : b);
    }
    return new SequencerBootstrap.StreamReplicaTails(maxGlobal, tails);
  }
}
