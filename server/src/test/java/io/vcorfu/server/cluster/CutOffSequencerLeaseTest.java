package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.Versioned;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.sequencer.ReadLeases;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sequencer cut off from the other nodes (its connections are refused) and from ZooKeeper, just
 * after it confirmed its layout, and so removed from the layout without being sealed, still
 * believes it holds its layout lease (2 s) until that runs out, and grants read leases (10 s) until
 * then: a client in its part of the network renews its lease up to the last moment, and answers
 * tail queries from memory until its lease ends. The sequencer that takes over must reveal no token
 * before then: once it has acknowledged a write, the holder answers no tail that misses the write.
 */
class CutOffSequencerLeaseTest {
  private static final Duration LAYOUT_LEASE = Duration.ofSeconds(2);
  private static final StreamId READ = StreamId.of("read");
  private static final StreamId OTHER = StreamId.of("other");

  @TempDir Path tmp;

  @Test
  void theNewSequencerRevealsNoTokenWhileTheCutOffSequencersLeasesRun() throws Exception {
    try (ZkCluster c = ZkCluster.startLinked(tmp, 3, 3, cfg -> cfg.withLayoutLease(LAYOUT_LEASE))) {
      Layout started = c.awaitStarted();
      c.awaitAdopted(started.epoch());
      Endpoint old = started.sequencer();
      ClusterStreamLog writer = c.client(c.endpoints().get(1), patient());
      writer.append(List.of(READ), bytes("before")).get(30, TimeUnit.SECONDS);

      // The holder and the pusher are in the old sequencer's part of the network.
      Transport near = reachingOnly(c.transport(), old);
      FaultRule tailRequests =
          c.transport()
              .faults()
              .add(FaultRule.requests().to(old).ofCase(PayloadCase.TAIL).delay(Duration.ZERO));
      ClusterStreamLog holder =
          ClusterStreamLog.connect(
              near,
              old,
              StreamLogOptions.defaults()
                  .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(1)))
                  .withReadLease(ReadLeases.MAX_LEASE));
      RpcClient pusher = near.newClient(ClientOptions.defaults());
      try (holder;
          pusher) {
        awaitCovered(holder, tailRequests);
        long memoryTail = holder.tails(List.of(READ)).join().streamTails().get(READ);

        // Tokens on another stream keep renewing the holder's lease (each is pushed to it and
        // acknowledged by its next lease request) for as long as the old sequencer serves.
        AtomicBoolean pushing = new AtomicBoolean(true);
        AtomicLong lastPushSent = new AtomicLong();
        Thread push =
            new Thread(
                () -> pushTokens(pusher, old, started, holder, pushing, lastPushSent),
                "token-pusher");
        push.setDaemon(true);
        push.start();
        Awaitility.await("tokens pushed")
            .atMost(Duration.ofSeconds(10))
            .until(() -> lastPushSent.get() != 0);

        // Cut off just after it confirmed its layout: its lease runs for nearly LAYOUT_LEASE.
        long cutAt = c.faults().cutOffJustAfterItConfirmsItsLayout(old);
        Layout next = removeAsAManagerDoes(c, old);
        Endpoint successor = next.sequencer();
        Awaitility.await(successor + " adopts epoch " + next.epoch())
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(5))
            .until(() -> c.node(successor).layout().epoch() >= next.epoch());
        long adoptedAt = System.nanoTime();

        ClusterStreamLog newWriter = c.client(successor, patient());
        AppendResult w = appendPatiently(newWriter);
        long ackedAt = System.nanoTime();
        pushing.set(false);
        boolean leased = holder.holdsReadLease();
        long queriesBefore = tailRequests.hits();
        Long answered = null;
        try {
          answered = holder.tails(List.of(READ)).get(5, TimeUnit.SECONDS).streamTails().get(READ);
        } catch (ExecutionException | TimeoutException e) {
          // Not answered: the holder has no lease left and cannot reach the new sequencer.
        }
        push.join(10_000);
        System.out.printf(
            "  cut at 0 ms; %s adopted epoch %d at %d ms; last lease renewal sent at %d ms; write"
                + " at stream address %d acknowledged at %d ms; holder %s a lease then; its"
                + " answer: %s (%s; tail before the cut %d)%n",
            successor,
            next.epoch(),
            ms(adoptedAt - cutAt),
            ms(lastPushSent.get() - cutAt),
            w.streamAddresses().get(READ),
            ms(ackedAt - cutAt),
            leased ? "held" : "no longer held",
            answered,
            tailRequests.hits() == queriesBefore ? "from memory" : "asked",
            memoryTail);
        assertThat(lastPushSent.get() - adoptedAt)
            .as("the old sequencer renewed the holder's lease after the new one adopted")
            .isPositive();
        if (answered != null) {
          assertThat(answered)
              .as("the holder's tail after a write the new sequencer acknowledged")
              .isGreaterThanOrEqualTo(w.streamAddresses().get(READ));
        }
      } finally {
        c.faults().reconnectToZooKeeper(old);
        c.faults().heal(old);
      }
    }
  }

  /** Client options whose requests wait out a sequencer's takeover. */
  private static StreamLogOptions patient() {
    return StreamLogOptions.defaults()
        .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(30)));
  }

  private static AppendResult appendPatiently(ClusterStreamLog log) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        return log.append(List.of(READ), bytes("after")).get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        assertThat(System.nanoTime() - deadline).as("append after the takeover").isNegative();
      }
    }
  }

  /** Waits until {@code holder} answers tail queries on {@link #READ} from memory. */
  private static void awaitCovered(ClusterStreamLog holder, FaultRule tailRequests) {
    Awaitility.await("the read lease covers " + READ)
        .atMost(Duration.ofSeconds(10))
        .pollDelay(Duration.ZERO)
        .until(
            () -> {
              holder.tails(List.of(READ)).join();
              long before = tailRequests.hits();
              holder.tails(List.of(READ)).join();
              return tailRequests.hits() == before;
            });
  }

  /**
   * Asks {@code sequencer} for tokens on {@link #OTHER}, one after the other, recording when the
   * last one answered was sent, until it stops serving or {@code pushing} is cleared; the holder
   * keeps querying its tails meanwhile, so its lease is in use.
   */
  private static void pushTokens(
      RpcClient rpc,
      Endpoint sequencer,
      Layout layout,
      ClusterStreamLog holder,
      AtomicBoolean pushing,
      AtomicLong lastSent) {
    Request token =
        Request.newBuilder()
            .setHeader(
                Header.newBuilder()
                    .setEpoch(layout.epoch())
                    .setClusterId(layout.clusterId())
                    .setProtocolVersion(NodeCalls.PROTOCOL_VERSION))
            .setToken(TokenRequest.newBuilder().addStreams(OTHER.toMsg()).setCount(1))
            .build();
    while (pushing.get()) {
      long sent = System.nanoTime();
      try {
        Errors.check(rpc.call(sequencer, token).get(5, TimeUnit.SECONDS));
        lastSent.set(sent);
        holder.tails(List.of(READ)).get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        return; // the old sequencer no longer serves
      }
    }
  }

  /**
   * Takes {@code old} out of the layout as a manager that found it gone does, at once: seals the
   * next epoch on every other node (not on {@code old}, which it cannot reach), then commits the
   * layout without it. If a manager of the cluster committed first, returns that layout.
   */
  private static Layout removeAsAManagerDoes(ZkCluster c, Endpoint old) throws Exception {
    Versioned<Layout> current = c.agreed();
    Layout layout = current.value();
    long epoch = layout.epoch() + 1;
    long logTail = -1;
    try (RpcClient rpc =
        c.transport()
            .newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(5)))) {
      NodeCalls calls = new NodeCalls(rpc);
      for (Endpoint node : layout.allServers()) {
        if (!node.equals(old)) {
          logTail =
              Math.max(logTail, calls.seal(node, epoch).get(5, TimeUnit.SECONDS).getLogTail());
        }
      }
    }
    Layout next = LayoutChanges.withoutNode(layout, old, logTail + 1).withEpoch(epoch);
    try {
      c.store().compareAndSet(current.version(), next).join();
      return next;
    } catch (CompletionException lost) {
      return c.awaitLayout("a layout without " + old, x -> x.removed().contains(old));
    }
  }

  /** A transport whose clients reach {@code only}; their calls to any other node are lost. */
  private static Transport reachingOnly(Transport network, Endpoint only) {
    return new Transport() {
      @Override
      public ServerBinding bind(Endpoint endpoint, RpcHandler handler) {
        throw new UnsupportedOperationException("clients only");
      }

      @Override
      public RpcClient newClient(ClientOptions options) {
        RpcClient rpc = network.newClient(options);
        return new RpcClient() {
          @Override
          public CompletableFuture<Response> call(Endpoint target, Request request) {
            if (target.equals(only)) {
              return rpc.call(target, request);
            }
            CompletableFuture<Response> lost = new CompletableFuture<>();
            CompletableFuture.delayedExecutor(
                    options.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .execute(
                    () ->
                        lost.completeExceptionally(
                            new RpcTimeoutException(
                                "no response from " + target + ": it is out of reach")));
            return lost;
          }

          @Override
          public void close() {
            rpc.close();
          }
        };
      }

      @Override
      public void close() {}
    };
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
