package io.vcorfu.server;

import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.SequencedWriteRequest;
import io.vcorfu.protocol.proto.SequencedWriteResponse;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.sequencer.SequencerService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Appends in one round trip on a node that is the sequencer and the only replica of every chain (a
 * one-node layout): the node issues the token, then writes the entry to its log replica and stream
 * replica exactly as a client's chain write would (same plan, same steps, the last visit committed
 * and the earlier ones committed with it), through the replica store's Java API, and answers once
 * that is durable.
 *
 * <p>Failure handling stays with the client: the answer carries the token and the chain-write
 * result, and a failed step (a reader filled the slot first, a trimmed address, an oversize entry)
 * is handled by the client's {@link ChainWriter} as if it had sent that step itself. If the node
 * dies between issuing the token and writing, the address is a hole that readers fill after their
 * bounded wait, as for any writer that dies after its token.
 */
final class SequencedWrites {
  private SequencedWrites() {}

  static CompletableFuture<SequencedWriteResponse> write(
      Layout layout,
      SequencerService sequencer,
      ReplicaStore store,
      SequencedWriteRequest request) {
    if (!layout.sequencerHostsEveryChain()) {
      throw new BadRequestException(
          "This node's layout (epoch "
              + layout.epoch()
              + ") places chains on other nodes, so it cannot write an entry by itself: ask the"
              + " sequencer for a token and write the chain instead.");
    }
    TokenRequest token = request.getToken();
    if (token.getCount() > 1) {
      throw new BadRequestException(
          "A sequenced write appends one entry, but its token request asks for "
              + token.getCount()
              + " tokens.");
    }
    List<StreamId> streams = new ArrayList<>(token.getStreamsCount());
    token.getStreamsList().forEach(s -> streams.add(StreamId.fromMsg(s)));
    return sequencer
        .token(token.toBuilder().setCount(1).build())
        .thenCompose(
            issued -> {
              Token t = issued.getTokens(0);
              LogEntryMsg entry =
                  ChainWriter.dataEntry(
                      t, request.getPayload(), issued.getEpoch(), request.getNonce());
              ChainPlan plan = layout.chainPlan(t.getGlobalAddress(), streams);
              for (ChainPlan.Visit v : plan.visits()) {
                if (!v.endpoint().equals(layout.sequencer())) {
                  throw new IllegalStateException(
                      "global address "
                          + t.getGlobalAddress()
                          + " is placed on "
                          + v.endpoint()
                          + ", not on this node");
                }
              }
              List<ReplicaStore.Step> steps = new ArrayList<>(plan.visits().size());
              for (int k = 0; k < plan.visits().size(); k++) {
                steps.add(
                    ReplicaStore.Step.of(
                        entry, plan.visits().get(k), k == plan.visits().size() - 1));
              }
              return store
                  .chainWrite(entry, steps, true)
                  .thenApply(
                      w ->
                          SequencedWriteResponse.newBuilder()
                              .setToken(issued)
                              .setWrite(w.toResponse())
                              .build());
            });
  }
}
