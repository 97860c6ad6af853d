package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.Transport.ServerBinding;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.testing.EchoHandler;
import io.vcorfu.protocol.testing.Messages;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NettyTransportTest {
  private static final Endpoint ANY_PORT = new Endpoint("127.0.0.1", 0);

  private NettyTransport transport;

  @BeforeEach
  void start() {
    transport = new NettyTransport(1024 * 1024, 2, flavor());
  }

  /** The socket implementation under test: the one this process picks (epoll on Linux). */
  IoFlavor flavor() {
    return IoFlavor.CURRENT;
  }

  @AfterEach
  void stop() {
    transport.close();
  }

  private static Throwable failure(CompletableFuture<?> future) {
    try {
      future.get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("the call did not fail in time", e);
    }
    throw new AssertionError("the call succeeded but should have failed");
  }

  /**
   * A request is handled on one of the server's event loops, which {@link
   * NettyTransport#currentServerLoop} names there (and work handed to it runs on the same thread);
   * any other thread, a client's event loop included, runs none.
   */
  @Test
  void theServerLoopIsKnownWhileHandlingARequestAndNowhereElse() throws Exception {
    CompletableFuture<Boolean> sameThread = new CompletableFuture<>();
    RpcHandler handler =
        request -> {
          Thread handling = Thread.currentThread();
          java.util.concurrent.Executor loop = transport.currentServerLoop();
          if (loop == null) {
            sameThread.complete(false);
          } else {
            loop.execute(() -> sameThread.complete(Thread.currentThread() == handling));
          }
          return new EchoHandler("node-1").handle(request);
        };
    ServerBinding server = transport.bind(ANY_PORT, handler);
    try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
      CompletableFuture<java.util.concurrent.Executor> onClientLoop =
          client
              .call(server.endpoint(), Messages.ping())
              .thenApply(r -> transport.currentServerLoop());
      assertThat(sameThread.get(30, TimeUnit.SECONDS)).isTrue();
      assertThat(onClientLoop.get(30, TimeUnit.SECONDS)).isNull();
      assertThat(transport.currentServerLoop()).isNull();
    } finally {
      server.close();
    }
  }

  @Test
  void pingRoundTripCarriesTheAssignedRequestId() {
    ServerBinding server = transport.bind(ANY_PORT, new EchoHandler("node-1"));
    assertThat(server.endpoint().port()).isPositive();
    try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
      Response first = client.call(server.endpoint(), Messages.ping()).join();
      Response second = client.call(server.endpoint(), Messages.ping()).join();
      assertThat(first.getPing().getNodeId()).isEqualTo("node-1");
      assertThat(first.getHeader().getRequestId()).isPositive();
      assertThat(second.getHeader().getRequestId()).isNotEqualTo(first.getHeader().getRequestId());
    }
  }

  /**
   * On three connections per node, see {@link ConnectionsPerNodeTest} for which one a call takes.
   */
  @ParameterizedTest(name = "{0} connection(s) per node")
  @ValueSource(ints = {1, 3})
  void eightThreadsOfPipelinedCallsEachGetTheirOwnResponse(int connectionsPerNode)
      throws Exception {
    int threads = 8;
    int perThread = 1_000;
    EchoHandler echo = new EchoHandler("n");
    ServerBinding server = transport.bind(ANY_PORT, echo);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    Set<Long> lanes = ConcurrentHashMap.newKeySet();
    try (RpcClient client =
        transport.newClient(
            ClientOptions.defaults()
                .withRequestTimeout(Duration.ofSeconds(30))
                .withConnectionsPerNode(connectionsPerNode))) {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int base = t * perThread;
        results.add(
            pool.submit(
                () -> {
                  lanes.add(Thread.currentThread().getId() % connectionsPerNode);
                  List<CompletableFuture<Response>> calls = new ArrayList<>(perThread);
                  for (int i = 0; i < perThread; i++) {
                    calls.add(client.call(server.endpoint(), Messages.numbered(base + i)));
                  }
                  int matched = 0;
                  for (int i = 0; i < perThread; i++) {
                    Response r = calls.get(i).get(30, TimeUnit.SECONDS);
                    if (Messages.number(r) == base + i) {
                      matched++;
                    }
                  }
                  return matched;
                }));
      }
      int matched = 0;
      for (Future<Integer> f : results) {
        matched += f.get(50, TimeUnit.SECONDS);
      }
      assertThat(matched).isEqualTo(threads * perThread);
      assertThat(echo.calls()).isEqualTo(threads * perThread);
      assertThat(((NettyRpcClient) client).connectionCount())
          .as("one connection for each lane the calling threads fall in")
          .isEqualTo(lanes.size());
      if (connectionsPerNode == 1) {
        assertThat(((NettyRpcClient) client).connectionCount())
            .as("one shared connection")
            .isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aCallTheServerNeverAnswersTimesOut() {
    ServerBinding server = transport.bind(ANY_PORT, EchoHandler.neverAnswers());
    try (RpcClient client =
        transport.newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(200)))) {
      long start = System.nanoTime();
      Throwable error = failure(client.call(server.endpoint(), Messages.ping()));
      assertThat(error)
          .isInstanceOf(RpcTimeoutException.class)
          .hasMessageContaining("within 200 ms");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofMillis(190));
    }
  }

  @Test
  void callsAnsweredBehindAnUnansweredOneCompleteAndItAloneTimesOut() {
    // Numbered calls are answered, pings never: the first call, unanswered, stays at the front of
    // the connection's calls while later ones are answered and swept out behind it.
    RpcHandler pingsNeverAnswered =
        request ->
            request.getPayloadCase() == Request.PayloadCase.PING
                ? new CompletableFuture<>()
                : CompletableFuture.completedFuture(
                    Response.newBuilder()
                        .setLogTail(
                            io.vcorfu.protocol.proto.LogTailResponse.newBuilder()
                                .setTail(request.getLogRead().getFrom()))
                        .build());
    ServerBinding server = transport.bind(ANY_PORT, pingsNeverAnswered);
    try (RpcClient client =
        transport.newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(300)))) {
      CompletableFuture<Response> first = client.call(server.endpoint(), Messages.ping());
      for (int i = 1; i <= 50; i++) {
        assertThat(Messages.number(client.call(server.endpoint(), Messages.numbered(i)).join()))
            .isEqualTo(i);
      }
      CompletableFuture<Response> last = client.call(server.endpoint(), Messages.ping());
      assertThat(failure(first)).isInstanceOf(RpcTimeoutException.class);
      assertThat(failure(last)).isInstanceOf(RpcTimeoutException.class);
      // Nothing is left to sweep: an idle client schedules no more sweeps.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> ((NettyRpcClient) client).heldForSweeps() == 0);
    }
  }

  @Test
  void callsOnManyConnectionsTimeOutInOnePassAPeriodNotOnePerConnection() {
    RpcHandler neverAnswers = request -> new CompletableFuture<>();
    List<ServerBinding> servers = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      servers.add(transport.bind(ANY_PORT, neverAnswers));
    }
    try (RpcClient client =
        transport.newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(400)))) {
      DeadlineSweeps sweeps = ((NettyRpcClient) client).sweeps;
      long passesBefore = sweeps.passes();
      long start = System.nanoTime();
      List<CompletableFuture<Response>> calls = new ArrayList<>();
      for (ServerBinding s : servers) {
        for (int i = 0; i < 5; i++) {
          calls.add(client.call(s.endpoint(), Messages.ping()));
        }
      }
      for (CompletableFuture<Response> call : calls) {
        assertThat(failure(call)).isInstanceOf(RpcTimeoutException.class);
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> ((NettyRpcClient) client).heldForSweeps() == 0);
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      // A pass schedules the next one a sweep period later: at most one pass a period, whatever
      // the number of connections holding calls (8 here, which alone would make 8 a period).
      long periodMs = CallDeadlines.SWEEP_NANOS / 1_000_000;
      assertThat(sweeps.passes() - passesBefore)
          .as("passes in %d ms with 8 connections holding calls", elapsedMs)
          .isPositive()
          .isLessThanOrEqualTo(elapsedMs / periodMs + 1);
    } finally {
      servers.forEach(ServerBinding::close);
    }
  }

  @Test
  void answeredCallsAreSweptOutAndAnIdleClientSchedulesNoSweep() {
    EchoHandler echo = new EchoHandler("n");
    ServerBinding server = transport.bind(ANY_PORT, echo);
    try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
      for (int round = 0; round < 3; round++) {
        List<CompletableFuture<Response>> calls = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
          calls.add(client.call(server.endpoint(), Messages.numbered(i)));
        }
        calls.forEach(CompletableFuture::join);
        // The default timeout is seconds away: answered calls leave at the next sweep, not then.
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> ((NettyRpcClient) client).heldForSweeps() == 0);
      }
      assertThat(echo.calls()).isEqualTo(6_000);
    }
  }

  @Test
  void aConnectionRefusedFailsWithTransportException() {
    // Port 1 on loopback: nothing listens there, and (below the ephemeral range) no client socket
    // can take it as its own port and connect to itself, as one can to a freshly closed ephemeral
    // port.
    Endpoint gone = new Endpoint("127.0.0.1", 1);
    try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
      assertThat(failure(client.call(gone, Messages.ping())))
          .isInstanceOf(TransportException.class)
          .hasMessageContaining(gone.toString())
          .matches(e -> ((TransportException) e).wasNeverSent(), "never sent")
          .matches(e -> ((TransportException) e).wasRefused(), "refused: nothing listens");
    }
  }

  @Test
  void closingTheServerFailsOutstandingCallsWithTransportException() {
    CountDownLatch received = new CountDownLatch(3);
    RpcHandler holdsForever =
        request -> {
          received.countDown();
          return new CompletableFuture<>();
        };
    ServerBinding server = transport.bind(ANY_PORT, holdsForever);
    try (RpcClient client =
        transport.newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(30)))) {
      List<CompletableFuture<Response>> calls = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        calls.add(client.call(server.endpoint(), Messages.ping()));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> received.getCount() == 0);
      server.close();
      for (CompletableFuture<Response> call : calls) {
        assertThat(failure(call))
            .isInstanceOf(TransportException.class)
            .hasMessageContaining("closed")
            .matches(e -> !((TransportException) e).wasNeverSent(), "may have been applied")
            .matches(
                e -> !((TransportException) e).wasRefused(), "a dropped connection, not refused");
      }
    }
  }

  @Test
  void theClientReconnectsAfterTheServerIsReboundOnTheSamePort() {
    ServerBinding first = transport.bind(ANY_PORT, new EchoHandler("first"));
    Endpoint at = first.endpoint();
    try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
      assertThat(client.call(at, Messages.ping()).join().getPing().getNodeId()).isEqualTo("first");
      first.close();
      assertThat(failure(client.call(at, Messages.ping()))).isInstanceOf(TransportException.class);

      // Another process may briefly hold the freed port (e.g. as an ephemeral source port): retry.
      java.util.concurrent.atomic.AtomicReference<ServerBinding> rebound =
          new java.util.concurrent.atomic.AtomicReference<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptionsInstanceOf(TransportException.class)
          .until(
              () -> {
                rebound.set(transport.bind(at, new EchoHandler("second")));
                return true;
              });
      assertThat(rebound.get().endpoint()).isEqualTo(at);
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptionsInstanceOf(CompletionException.class)
          .until(
              () -> client.call(at, Messages.ping()).join().getPing().getNodeId().equals("second"));
    }
  }

  @Test
  void garbageFromOneSocketClosesOnlyThatConnection() throws Exception {
    EchoHandler echo = new EchoHandler("n");
    ServerBinding server = transport.bind(ANY_PORT, echo);
    Endpoint at = server.endpoint();
    try (RpcClient client = transport.newClient(ClientOptions.defaults());
        Socket raw = new Socket(at.host(), at.port())) {
      assertThat(Messages.number(client.call(at, Messages.numbered(1)).join())).isEqualTo(1);

      raw.setSoTimeout(10_000);
      OutputStream out = raw.getOutputStream();
      out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = raw.getInputStream();
      assertThat(in.read()).as("the server closes the garbage connection").isEqualTo(-1);

      assertThat(Messages.number(client.call(at, Messages.numbered(2)).join())).isEqualTo(2);
      assertThat(echo.calls()).isEqualTo(2);
    }
  }

  @Test
  void anUnparsableFrameFromOneSocketClosesOnlyThatConnection() throws Exception {
    ServerBinding server = transport.bind(ANY_PORT, new EchoHandler("n"));
    Endpoint at = server.endpoint();
    try (RpcClient client = transport.newClient(ClientOptions.defaults());
        Socket raw = new Socket(at.host(), at.port())) {
      client.call(at, Messages.ping()).join();
      raw.setSoTimeout(10_000);
      raw.getOutputStream()
          .write(new byte[] {0, 0, 0, 4, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
      raw.getOutputStream().flush();
      assertThat(raw.getInputStream().read()).isEqualTo(-1);
      assertThat(client.call(at, Messages.ping()).join().getPing().getNodeId()).isEqualTo("n");
    }
  }

  @Test
  void theClientRefusesARequestOverItsFrameLimitAndSendsNothing() {
    EchoHandler echo = new EchoHandler("n");
    ServerBinding server = transport.bind(ANY_PORT, echo);
    ClientOptions small = new ClientOptions(Duration.ofSeconds(5), Duration.ofSeconds(2), 1000);
    try (RpcClient client = transport.newClient(small)) {
      Throwable error = failure(client.call(server.endpoint(), Messages.ofSize(2000)));
      assertThat(error).isInstanceOf(TooLargeException.class);
      assertThat(((TooLargeException) error).limit()).isEqualTo(1000);
      assertThat(client.call(server.endpoint(), Messages.ping()).join().hasPing()).isTrue();
      assertThat(echo.calls()).as("only the ping reached the server").isEqualTo(1);
    }
  }

  @Test
  void aRequestOverTheServerLimitClosesTheConnectionAndTheNextCallReconnects() {
    NettyTransport smallServer = new NettyTransport(1000, 1);
    try {
      ServerBinding server = smallServer.bind(ANY_PORT, new EchoHandler("n"));
      try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
        assertThat(failure(client.call(server.endpoint(), Messages.ofSize(5000))))
            .isInstanceOf(TransportException.class);
        assertThat(client.call(server.endpoint(), Messages.ping()).join().hasPing()).isTrue();
      }
    } finally {
      smallServer.close();
    }
  }

  @Test
  void handlerErrorsArriveAsTypedErrors() {
    ServerBinding server = transport.bind(ANY_PORT, new EchoHandler("n"));
    try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
      Response r = client.call(server.endpoint(), Messages.token(0)).join();
      assertThatThrownBy(() -> Errors.check(r))
          .isInstanceOf(io.vcorfu.protocol.BadRequestException.class);
    }
  }

  @Test
  void callsOnAClosedClientFailAndItsOutstandingCallsFail() {
    AtomicInteger seen = new AtomicInteger();
    ServerBinding server =
        transport.bind(
            ANY_PORT,
            r -> {
              seen.incrementAndGet();
              return new CompletableFuture<>();
            });
    RpcClient client = transport.newClient(ClientOptions.defaults());
    CompletableFuture<Response> outstanding = client.call(server.endpoint(), Messages.ping());
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.get() == 1);
    client.close();
    assertThat(failure(outstanding)).isInstanceOf(TransportException.class);
    assertThat(failure(client.call(server.endpoint(), Messages.ping())))
        .isInstanceOf(TransportException.class);
  }

  @Test
  void bindingAnOccupiedPortFailsWithTransportException() {
    ServerBinding server = transport.bind(ANY_PORT, new EchoHandler("n"));
    assertThatThrownBy(() -> transport.bind(server.endpoint(), new EchoHandler("m")))
        .isInstanceOf(TransportException.class)
        .hasMessageContaining("cannot listen on " + server.endpoint());
  }
}
