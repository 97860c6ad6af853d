package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Tokens;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.netty.NettyTransport;
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
          long[] wire = callersGetTheirOwnTokens(log.ops());
          assertThat(wire[1]).as("requests carried").isEqualTo(CALLERS);
          assertThat(wire[0])
              .as("token messages for %d callers", CALLERS)
              .isEqualTo(tokenMessages.hits())
              .isLessThan(CALLERS / 4);
        }
      }
    }
  }

  /**
   * The same over a real socket, where the client sends its coalesced requests to the node, which
   * said it takes them, as fixed packed frames ({@code PackedTokenFrames}), and the node answers
   * them fixed: rounds of callers, each round's requests coalesced behind the messages in flight.
   */
  @Test
  void overASocketPackedFramesGiveEveryCallerItsOwnTokens() throws Exception {
    try (NettyTransport transport = new NettyTransport(ClientOptions.DEFAULT_MAX_FRAME_BYTES);
        Node node =
            Node.start(
                NodeConfig.durable(new Endpoint("127.0.0.1", 0), tmp.resolve("data")), transport)) {
      node.ready().get(30, TimeUnit.SECONDS);
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(transport, node.endpoint(), StreamLogOptions.defaults())) {
        long[] before = log.ops().tokenMessagesAndRequests();
        for (int round = 0; round < 3; round++) {
          callersGetTheirOwnTokens(log.ops());
        }
        long[] wire = log.ops().tokenMessagesAndRequests();
        assertThat(wire[1] - before[1]).as("requests carried").isEqualTo(3L * CALLERS);
        assertThat(wire[0] - before[0])
            .as("token messages for %d callers", 3 * CALLERS)
            .isLessThan(3L * CALLERS / 4);
      }
    }
  }

  /**
   * Sends {@link #CALLERS} concurrent token requests, checks that every caller got its own tokens
   * (each global address once, each stream's addresses without a gap, as many tokens as asked) and
   * returns the client's token messages and requests so far.
   */
  private static long[] callersGetTheirOwnTokens(ReplicaClient ops) throws Exception {
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
    return ops.tokenMessagesAndRequests();
  }
}
