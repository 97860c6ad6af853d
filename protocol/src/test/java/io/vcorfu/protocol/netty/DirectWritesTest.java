package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.Transport.ServerBinding;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogTailResponse;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.testing.Messages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's callers write their requests' frames to the socket themselves when the connection has
 * nothing else to send ({@link DirectWrites}); the frames on the wire stay whole and every call
 * gets its own answer, also when the socket fills and a frame goes out in part.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DirectWritesTest {
  private static final Logger LOG = LoggerFactory.getLogger(DirectWritesTest.class);
  private static final Endpoint ANY_PORT = new Endpoint("127.0.0.1", 0);

  private NettyTransport transport;

  @BeforeEach
  void start() {
    assumeTrue(IoFlavor.CURRENT == IoFlavor.EPOLL, "direct writes need the epoll transport");
    transport = new NettyTransport(1024 * 1024, 2, IoFlavor.CURRENT);
  }

  @AfterEach
  void stop() {
    if (transport != null) {
      transport.close();
    }
  }

  /** A request numbered {@code n} whose payload's every byte is derived from {@code n}. */
  private static Request numberedWrite(long n, int bytes) {
    byte[] payload = new byte[bytes];
    Arrays.fill(payload, (byte) (n * 31 + 7));
    return Request.newBuilder()
        .setHeader(Messages.header(0))
        .setLogWrite(
            LogWriteRequest.newBuilder()
                .setEntry(
                    LogEntryMsg.newBuilder()
                        .setGlobalAddress(n)
                        .setPayload(ByteString.copyFrom(payload))))
        .build();
  }

  /**
   * Answers a {@link #numberedWrite} with its number once its payload checks, refuses it otherwise,
   * and records each number it saw. While {@link #hold} is up it blocks its event loop on the first
   * request, so the connection stops being read and the client's socket fills.
   */
  private static final class CheckingHandler implements RpcHandler {
    final Set<Long> seen = ConcurrentHashMap.newKeySet();
    final AtomicInteger duplicates = new AtomicInteger();
    final AtomicInteger torn = new AtomicInteger();
    volatile CountDownLatch hold = new CountDownLatch(0);

    /** The number of the request the handler waits with, 0 when it waits with none. */
    volatile long waitingWith;

    @Override
    public CompletableFuture<Response> handle(Request request) {
      LogEntryMsg e = request.getLogWrite().getEntry();
      long n = e.getGlobalAddress();
      CountDownLatch h = hold;
      waitingWith = n;
      awaitUninterruptibly(h);
      waitingWith = 0;
      byte expected = (byte) (n * 31 + 7);
      for (byte b : e.getPayload().toByteArray()) {
        if (b != expected) {
          torn.incrementAndGet();
          return CompletableFuture.completedFuture(
              Errors.toResponse(new BadRequestException("payload of " + n + " is not its own")));
        }
      }
      if (!seen.add(n)) {
        duplicates.incrementAndGet();
      }
      return CompletableFuture.completedFuture(
          Response.newBuilder().setLogTail(LogTailResponse.newBuilder().setTail(n)).build());
    }
  }

  @Test
  void aCallerBlockingOnEachCallWritesItsFramesItself() throws Exception {
    CheckingHandler handler = new CheckingHandler();
    ServerBinding server = transport.bind(ANY_PORT, handler);
    try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
      for (long n = 1; n <= 200; n++) {
        Response r =
            client.call(server.endpoint(), numberedWrite(n, 100)).get(30, TimeUnit.SECONDS);
        assertThat(Messages.number(r)).isEqualTo(n);
      }
      long[] direct = ((NettyRpcClient) client).directWrites();
      // The first call may go through the I/O thread (the connection was not open yet); a caller
      // that waits for each answer finds the connection idle for the others.
      assertThat(direct[0]).isGreaterThanOrEqualTo(199);
      assertThat(handler.seen).hasSize(200);
    } finally {
      server.close();
    }
  }

  /**
   * While the server stops reading, one thread pipelines writes of 1 byte to 60 KiB until the
   * socket is full and a frame goes out in part, its rest left to the client's I/O thread (held
   * busy meanwhile); the server then empties the socket, and a caller that finds it empty still
   * queues its frame behind that rest. With the server stopped again, eight threads pipeline more
   * at once (whole, in part or queued, as the connection allows). Once the server reads again every
   * call is answered with its own number, every payload arrives intact, and none twice.
   */
  @Test
  void framesStayWholeWhenTheSocketFillsUnderConcurrentCallers() throws Exception {
    long seed = System.nanoTime();
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    CheckingHandler handler = new CheckingHandler();
    ServerBinding server = transport.bind(ANY_PORT, handler);
    ExecutorService callers = Executors.newFixedThreadPool(8);
    AtomicInteger numbers = new AtomicInteger();
    List<CompletableFuture<Response>> all = new ArrayList<>();
    CountDownLatch unblockLoop = new CountDownLatch(1);
    RpcClient client = transport.newClient(ClientOptions.defaults());
    try {
      NettyRpcClient netty = (NettyRpcClient) client;
      netty.maxDirectOutstanding = Integer.MAX_VALUE;
      all.add(call(client, server, numbers.incrementAndGet(), 1));
      all.get(0).get(30, TimeUnit.SECONDS);
      // Block the client's I/O thread in an answer's callback (attached while the server holds
      // the answer back), so the rest of a frame that goes out in part stays with it; the server
      // then stops at the next request.
      CountDownLatch answerFirst = new CountDownLatch(1);
      handler.hold = answerFirst;
      CountDownLatch loopBlocked = new CountDownLatch(1);
      long held = numbers.incrementAndGet();
      CompletableFuture<Void> blocking =
          call(client, server, held, 1)
              .thenRun(
                  () -> {
                    loopBlocked.countDown();
                    awaitUninterruptibly(unblockLoop);
                  });
      await().atMost(Duration.ofSeconds(30)).until(() -> handler.waitingWith == held);
      handler.hold = new CountDownLatch(1);
      answerFirst.countDown();
      assertThat(loopBlocked.await(30, TimeUnit.SECONDS)).isTrue();
      // Loopback buffers hold a few megabytes; 2,000 frames of 30 KiB on average are 60 MB.
      for (int i = 0; i < 2_000 && netty.directWrites()[1] == 0; i++) {
        all.add(call(client, server, numbers.incrementAndGet(), 1 + random.nextInt(60_000)));
      }
      assertThat(netty.directWrites()[1]).as("a frame went out in part").isPositive();
      // The server reads every whole frame; the socket empties up to the partial frame's rest.
      int whole = numbers.get() - 1;
      handler.hold.countDown();
      await().atMost(Duration.ofSeconds(30)).until(() -> handler.seen.size() == whole);
      // A caller now finds an empty socket, but the rest must come first: it queues its frame.
      long wholeBefore = netty.directWrites()[0];
      all.add(call(client, server, numbers.incrementAndGet(), 100));
      assertThat(netty.directWrites()[0]).isEqualTo(wholeBefore);
      handler.hold = new CountDownLatch(1);
      unblockLoop.countDown();
      blocking.get(30, TimeUnit.SECONDS);
      List<Future<List<CompletableFuture<Response>>>> issued = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        Random own = new Random(random.nextLong());
        issued.add(
            callers.submit(
                () -> {
                  List<CompletableFuture<Response>> calls = new ArrayList<>();
                  for (int i = 0; i < 40; i++) {
                    calls.add(
                        call(client, server, numbers.incrementAndGet(), 1 + own.nextInt(60_000)));
                  }
                  return calls;
                }));
      }
      for (Future<List<CompletableFuture<Response>>> f : issued) {
        all.addAll(f.get(60, TimeUnit.SECONDS));
      }
      handler.hold.countDown();
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      long[] direct = netty.directWrites();
      LOG.info("{} calls: {} frames written whole, {} in part", all.size(), direct[0], direct[1]);
      assertThat(handler.torn.get()).isZero();
      assertThat(handler.duplicates.get()).isZero();
      assertThat(handler.seen).hasSize(numbers.get());
      // With the server reading again, a caller waiting on each call writes its frame itself.
      long before = netty.directWrites()[0];
      call(client, server, numbers.incrementAndGet(), 100).get(30, TimeUnit.SECONDS);
      call(client, server, numbers.incrementAndGet(), 100).get(30, TimeUnit.SECONDS);
      assertThat(netty.directWrites()[0]).isGreaterThan(before);
    } finally {
      unblockLoop.countDown();
      handler.hold.countDown();
      callers.shutdownNow();
      client.close();
      server.close();
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A call of {@link #numberedWrite} whose answer must carry its own number. */
  private static CompletableFuture<Response> call(
      RpcClient client, ServerBinding server, long n, int bytes) {
    return client
        .call(server.endpoint(), numberedWrite(n, bytes))
        .thenApply(
            r -> {
              assertThat(Messages.number(r)).isEqualTo(n);
              return r;
            });
  }

  /**
   * With more than {@link DirectWrites#MAX_OUTSTANDING} calls waiting for answers, further frames
   * go through the I/O thread (which batches them), and all are answered.
   */
  @Test
  void framesBeyondTheOutstandingBoundGoThroughTheIoThread() throws Exception {
    CheckingHandler handler = new CheckingHandler();
    ServerBinding server = transport.bind(ANY_PORT, handler);
    try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
      NettyRpcClient netty = (NettyRpcClient) client;
      call(client, server, 1, 10).get(30, TimeUnit.SECONDS);
      long before = netty.directWrites()[0];
      handler.hold = new CountDownLatch(1);
      List<CompletableFuture<Response>> calls = new ArrayList<>();
      for (long n = 2; n <= 21; n++) {
        calls.add(call(client, server, n, 10));
      }
      assertThat(netty.directWrites()[0] - before).isEqualTo(DirectWrites.MAX_OUTSTANDING);
      handler.hold.countDown();
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      assertThat(handler.seen).hasSize(21);
    } finally {
      handler.hold.countDown();
      server.close();
    }
  }

  @Test
  void noFrameIsWrittenDirectlyOverTheNioTransport() throws Exception {
    try (NettyTransport nio = new NettyTransport(1024 * 1024, 1, IoFlavor.NIO)) {
      CheckingHandler handler = new CheckingHandler();
      ServerBinding server = nio.bind(ANY_PORT, handler);
      try (RpcClient client = nio.newClient(ClientOptions.defaults())) {
        for (long n = 1; n <= 20; n++) {
          client.call(server.endpoint(), numberedWrite(n, 100)).get(30, TimeUnit.SECONDS);
        }
        assertThat(((NettyRpcClient) client).directWrites()).containsExactly(0, 0);
        assertThat(handler.seen).hasSize(20);
      } finally {
        server.close();
      }
    }
  }
}
