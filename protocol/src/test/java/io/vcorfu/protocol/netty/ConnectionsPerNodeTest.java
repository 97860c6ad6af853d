package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.Transport.ServerBinding;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.SequencedWriteRequest;
import io.vcorfu.protocol.testing.EchoHandler;
import io.vcorfu.protocol.testing.Messages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client with several connections to each node ({@link ClientOptions#connectionsPerNode}): which
 * connection a call takes, over real sockets on loopback.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionsPerNodeTest {
  private static final Endpoint ANY_PORT = new Endpoint("127.0.0.1", 0);

  private NettyTransport transport;

  @BeforeEach
  void start() {
    transport = new NettyTransport(1024 * 1024, 2, IoFlavor.CURRENT);
  }

  @AfterEach
  void stop() {
    transport.close();
  }

  @Test
  void aThreadAlwaysUsesTheSameOfSeveralConnectionsAndCloseFailsThemAll() throws Exception {
    ServerBinding server = transport.bind(ANY_PORT, EchoHandler.neverAnswers());
    RpcClient client =
        transport.newClient(
            ClientOptions.defaults()
                .withRequestTimeout(Duration.ofSeconds(30))
                .withConnectionsPerNode(2));
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    // Threads until both lanes are taken (thread ids of both parities), each calling twice.
    Set<Long> lanes = new HashSet<>();
    for (int started = 0; lanes.size() < 2; started++) {
      assertThat(started).as("threads started to take both lanes").isLessThan(20);
      List<CompletableFuture<Response>> mine = new ArrayList<>();
      Thread t =
          new Thread(
              () -> {
                mine.add(client.call(server.endpoint(), Messages.ping()));
                mine.add(client.call(server.endpoint(), Messages.ping()));
              });
      t.start();
      t.join();
      lanes.add(t.getId() % 2);
      calls.addAll(mine);
      assertThat(((NettyRpcClient) client).connectionCount())
          .as("a thread's two calls share one connection")
          .isEqualTo(lanes.size());
    }
    client.close();
    for (CompletableFuture<Response> call : calls) {
      assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(TransportException.class);
    }
    server.close();
  }

  @Test
  void everyAttemptOfOneNumberedAppendTravelsOnTheConnectionItsNumberPicks() throws Exception {
    ServerBinding server = transport.bind(ANY_PORT, EchoHandler.neverAnswers());
    try (RpcClient client =
        transport.newClient(
            ClientOptions.defaults()
                .withRequestTimeout(Duration.ofSeconds(30))
                .withConnectionsPerNode(2))) {
      NettyRpcClient netty = (NettyRpcClient) client;
      client.call(server.endpoint(), numberedAppend(7, false));
      assertThat(netty.connectionCount()).isEqualTo(1);
      // A retry of append 7 sent from a thread whose own lane is the other connection.
      long mainLane = Thread.currentThread().getId() % 2;
      for (int started = 0; ; started++) {
        assertThat(started).as("threads started to find one of the other lane").isLessThan(20);
        Thread t = new Thread(() -> client.call(server.endpoint(), numberedAppend(7, true)));
        if (t.getId() % 2 == mainLane) {
          continue;
        }
        t.start();
        t.join();
        break;
      }
      assertThat(netty.connectionCount())
          .as("the retry went on the first attempt's connection, not its thread's")
          .isEqualTo(1);
      client.call(server.endpoint(), numberedAppend(8, false));
      assertThat(netty.connectionCount())
          .as("another append's number picks the other")
          .isEqualTo(2);
    } finally {
      server.close();
    }
  }

  private static Request numberedAppend(long writerSeq, boolean retry) {
    return Request.newBuilder()
        .setSequencedWrite(
            SequencedWriteRequest.newBuilder().setWriterSeq(writerSeq).setRetry(retry))
        .build();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(ints = {0, -1, ClientOptions.MAX_CONNECTIONS_PER_NODE + 1})
  void connectionsPerNodeOutsideItsRangeAreRefused(int n) {
    assertThatThrownBy(() -> ClientOptions.defaults().withConnectionsPerNode(n))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "connections per node must be 1 to "
                + ClientOptions.MAX_CONNECTIONS_PER_NODE
                + ", not "
                + n);
  }
}
