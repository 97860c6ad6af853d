package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Tokens;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client's concurrent token requests reach a real node coalesced into fewer messages, and every
 * caller still gets exactly its own tokens: each global address issued once, each stream's
 * addresses without a gap or a repeat, as if every request had gone alone.
 */
class TokenCoalescingTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final int CALLERS = 400;

  @TempDir Path tmp;

  @Test
  void concurrentCallersGetTheirOwnTokensFromFewerMessages() throws Exception {
    try (InJvmTransport transport = new InJvmTransport()) {
      FaultRule tokenMessages =
          transport
              .faults()
              .add(FaultRule.requests().ofCase(PayloadCase.TOKEN).delay(Duration.ofMillis(2)));
      try (Node node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport)) {
        node.ready().join();
        try (ClusterStreamLog log =
            ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
          ReplicaClient ops = log.ops();
          List<StreamId> streams = List.of(StreamId.of("c-0"), StreamId.of("c-1"));
          List<CompletableFuture<Tokens>> calls = new ArrayList<>();
          for (int i = 0; i < CALLERS; i++) {
            List<StreamId> asked = i % 3 == 0 ? streams : List.of(streams.get(i % 2));
            calls.add(ops.token(asked, null, 1 + i % 4));
          }
          Set<Long> globals = new HashSet<>();
          Map<StreamId, TreeSet<Long>> perStream = new HashMap<>();
          long tokens = 0;
          for (int i = 0; i < CALLERS; i++) {
            TokenResponse r = calls.get(i).get(10, TimeUnit.SECONDS).toResponse();
            List<StreamId> asked = i % 3 == 0 ? streams : List.of(streams.get(i % 2));
            assertThat(r.getTokensCount()).as("caller %d's count", i).isEqualTo(1 + i % 4);
            for (Token t : r.getTokensList()) {
              tokens++;
              assertThat(globals.add(t.getGlobalAddress()))
                  .as("global address %d issued once", t.getGlobalAddress())
                  .isTrue();
              assertThat(t.getSlotsCount()).isEqualTo(asked.size());
              for (int k = 0; k < asked.size(); k++) {
                assertThat(StreamId.fromMsg(t.getSlots(k).getStream())).isEqualTo(asked.get(k));
                perStream
                    .computeIfAbsent(asked.get(k), s -> new TreeSet<>())
                    .add(t.getSlots(k).getStreamAddress());
              }
            }
          }
          assertThat(globals).hasSize((int) tokens);
          for (TreeSet<Long> addresses : perStream.values()) {
            assertThat(addresses.last() - addresses.first() + 1)
                .as("a stream's addresses, without a gap")
                .isEqualTo(addresses.size());
          }
          long[] wire = ops.tokenMessagesAndRequests();
          assertThat(wire[1]).as("requests carried").isEqualTo(CALLERS);
          assertThat(wire[0])
              .as("token messages for %d callers", CALLERS)
              .isEqualTo(tokenMessages.hits())
              .isLessThan(CALLERS / 4);
        }
      }
    }
  }
}
