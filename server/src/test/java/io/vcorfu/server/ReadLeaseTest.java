package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.ReadLeaseRequest;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read leases: a client holding one answers tail queries from memory, with no request, and its
 * answers still include every write acknowledged to anyone before the query began; a holder that
 * stops answering holds other writers up only until its lease has run out; a restarted sequencer
 * waits out the leases it may have granted before revealing any token.
 */
class ReadLeaseTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final StreamId S = StreamId.of("s");
  private static final Duration LEASE = Duration.ofMillis(600);

  @TempDir Path tmp;

  private static ClusterStreamLog client(InJvmTransport transport, Duration lease) {
    return ClusterStreamLog.connect(
        transport, NODE, StreamLogOptions.defaults().withReadLease(lease));
  }

  /**
   * Queries {@code s}'s tail until the lease covers it, so that the next query is answered from
   * memory.
   */
  private static void leaseCovering(ClusterStreamLog log, StreamId s, FaultRule tails) {
    Awaitility.await("the read lease covers " + s)
        .atMost(Duration.ofSeconds(10))
        .pollDelay(Duration.ZERO)
        .until(
            () -> {
              log.tails(List.of(s)).join();
              long before = tails.hits();
              log.tails(List.of(s)).join();
              return tails.hits() == before;
            });
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A durable node, a counter of the tail requests it gets, a client without a lease that wrote the
   * first entry of {@link #S}, and a lease holder whose lease covers {@link #S}.
   */
  private final class Fixture implements AutoCloseable {
    final InJvmTransport transport = new InJvmTransport();
    final Node node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport);
    final FaultRule tails =
        transport.faults().add(FaultRule.requests().ofCase(PayloadCase.TAIL).delay(Duration.ZERO));
    final ClusterStreamLog writer;
    final ClusterStreamLog holder;

    Fixture(List<StreamId> firstEntry) {
      node.ready().join();
      writer = client(transport, Duration.ZERO);
      holder = client(transport, LEASE);
      writer.append(firstEntry, bytes("first")).join();
      leaseCovering(holder, S, tails);
    }

    @Override
    public void close() {
      holder.close();
      writer.close();
      node.close();
      transport.close();
    }
  }

  @Test
  void aLeaseHolderAnswersTailQueriesFromMemoryAndSeesEveryAcknowledgedWrite() throws Exception {
    try (Fixture f = new Fixture(List.of(S))) {
      ClusterStreamLog holder = f.holder;
      ClusterStreamLog writer = f.writer;
      FaultRule tails = f.tails;
      {
        int fromMemory = 0;
        for (int i = 0; i < 200; i++) {
          AppendResult w = writer.append(List.of(S), bytes("v" + i)).join();
          long before = tails.hits();
          Tails t = holder.tails(List.of(S)).join();
          if (tails.hits() == before) {
            fromMemory++;
            // Answered from memory: it must already include the acknowledged write.
            assertThat(t.streamTails().get(S))
                .as("stream tail after write %d", i)
                .isEqualTo(w.streamAddresses().get(S));
            assertThat(t.globalTail()).isGreaterThanOrEqualTo(w.globalAddress());
            assertThat(t.streamLastGlobal().get(S)).isEqualTo(w.globalAddress());
          } else {
            assertThat(t.streamTails().get(S)).isGreaterThanOrEqualTo(w.streamAddresses().get(S));
          }
        }
        assertThat(fromMemory)
            .as("queries answered from memory right after another client's write")
            .isGreaterThan(100);
        long before = tails.hits();
        for (int i = 0; i < 100; i++) {
          holder.tails(List.of(S)).join();
        }
        assertThat(tails.hits() - before)
            .as("tail requests for 100 queries under a lease")
            .isLessThan(100);
        assertThat(holder.holdsReadLease()).isTrue();
      }
    }
  }

  @Test
  void onAFiveNodeLayoutTokenAnswersWaitForTheHolderToo() throws Exception {
    try (InProcessCluster cluster = InProcessCluster.fiveNodes(tmp)) {
      InJvmTransport transport = (InJvmTransport) cluster.transport();
      FaultRule tails =
          transport
              .faults()
              .add(FaultRule.requests().ofCase(PayloadCase.TAIL).delay(Duration.ZERO));
      ClusterStreamLog holder = cluster.client(StreamLogOptions.defaults().withReadLease(LEASE));
      ClusterStreamLog writer = cluster.client();
      writer.append(List.of(S), bytes("first")).join();
      leaseCovering(holder, S, tails);
      int fromMemory = 0;
      for (int i = 0; i < 100; i++) {
        AppendResult w = writer.append(List.of(S), bytes("v" + i)).join();
        long before = tails.hits();
        Tails t = holder.tails(List.of(S)).join();
        if (tails.hits() == before) {
          fromMemory++;
        }
        assertThat(t.streamTails().get(S)).isGreaterThanOrEqualTo(w.streamAddresses().get(S));
        assertThat(t.globalTail()).isGreaterThanOrEqualTo(w.globalAddress());
      }
      assertThat(fromMemory).isGreaterThan(50);
    }
  }

  /**
   * Two writers append concurrently while a lease holder queries tails: every answer, from memory
   * or not, includes every write acknowledged before the query began (stream and global tail).
   */
  @Test
  void concurrentWritersNeverGetAheadOfTheHoldersAnswers() throws Exception {
    long seed = System.nanoTime();
    System.out.println("concurrentWritersNeverGetAheadOfTheHoldersAnswers seed " + seed);
    StreamId other = StreamId.of("other");
    try (Fixture f = new Fixture(List.of(S, other))) {
      ClusterStreamLog holder = f.holder;
      ClusterStreamLog w1 = f.writer;
      // The second writer holds a lease too (it queries tails): answers to it carry its pushes.
      try (ClusterStreamLog w2 = client(f.transport, LEASE)) {
        java.util.concurrent.atomic.AtomicLong ackedStream =
            new java.util.concurrent.atomic.AtomicLong(-1);
        java.util.concurrent.atomic.AtomicLong ackedGlobal =
            new java.util.concurrent.atomic.AtomicLong(-1);
        java.util.concurrent.ExecutorService pool =
            java.util.concurrent.Executors.newFixedThreadPool(2);
        java.util.Random random = new java.util.Random(seed);
        List<java.util.concurrent.Future<?>> writers = new java.util.ArrayList<>();
        for (ClusterStreamLog w : List.of(w1, w2)) {
          boolean both = random.nextBoolean();
          writers.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 300; i++) {
                      if (w == w2) {
                        w.tails(List.of(S, other)).join();
                      }
                      AppendResult r =
                          w.append(
                                  both && i % 3 == 0 ? List.of(S, other) : List.of(S),
                                  bytes("w" + i))
                              .join();
                      ackedStream.accumulateAndGet(r.streamAddresses().get(S), Math::max);
                      ackedGlobal.accumulateAndGet(r.globalAddress(), Math::max);
                    }
                    return null;
                  }));
        }
        int queries = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (writers.stream().anyMatch(w -> !w.isDone()) && System.nanoTime() < deadline) {
          long floorStream = ackedStream.get();
          long floorGlobal = ackedGlobal.get();
          Tails t = holder.tails(List.of(S)).join();
          assertThat(t.streamTails().get(S))
              .as("query %d", queries)
              .isGreaterThanOrEqualTo(floorStream);
          assertThat(t.globalTail()).as("query %d", queries).isGreaterThanOrEqualTo(floorGlobal);
          queries++;
        }
        for (java.util.concurrent.Future<?> w : writers) {
          w.get(10, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(queries).isGreaterThan(0);
      }
    }
  }

  @Test
  void aHolderThatStopsAnsweringDelaysOtherWritersOnlyUntilItsLeaseRunsOut() throws Exception {
    try (Fixture f = new Fixture(List.of(S))) {
      ClusterStreamLog holder = f.holder;
      ClusterStreamLog writer = f.writer;
      FaultRule tails = f.tails;
      InJvmTransport transport = f.transport;
      {
        // The holder's renewals (which also acknowledge pushes) no longer reach the sequencer.
        transport.faults().add(FaultRule.requests().ofCase(PayloadCase.READ_LEASE).drop());
        AppendResult w = writer.append(List.of(S), bytes("late")).get(10, TimeUnit.SECONDS);
        // Released only once the holder's lease ran out at the sequencer, which is after the
        // holder itself stopped using it.
        assertThat(holder.holdsReadLease()).isFalse();
        long before = tails.hits();
        Tails t = holder.tails(List.of(S)).join();
        assertThat(tails.hits())
            .as("a query without a valid lease is a request")
            .isGreaterThan(before);
        assertThat(t.streamTails().get(S)).isEqualTo(w.streamAddresses().get(S));
      }
    }
  }

  @Test
  void aClosingClientEndsItsLeaseAtOnce() throws Exception {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport)) {
      node.ready().join();
      FaultRule tails =
          transport
              .faults()
              .add(FaultRule.requests().ofCase(PayloadCase.TAIL).delay(Duration.ZERO));
      ClusterStreamLog holder = client(transport, Duration.ofSeconds(10));
      holder.append(List.of(S), bytes("first")).join();
      leaseCovering(holder, S, tails);
      assertThat(node.readLeaseHolders()).isEqualTo(1);
      holder.close();
      // A ten-second lease, yet nobody holds one right after close returned.
      assertThat(node.readLeaseHolders()).isZero();
    }
  }

  @Test
  // The try block holds the resource open for its duration; the body does not name it.
  @SuppressWarnings("try")
  void aRestartedSequencerWaitsOutTheLeasesItGrantedBeforeIssuingTokens() throws Exception {
    Path data = tmp.resolve("data");
    try (InJvmTransport transport = new InJvmTransport()) {
      FaultRule tails =
          transport
              .faults()
              .add(FaultRule.requests().ofCase(PayloadCase.TAIL).delay(Duration.ZERO));
      try (Node node = Node.start(NodeConfig.durable(NODE, data), transport);
          ClusterStreamLog holder = client(transport, LEASE)) {
        node.ready().join();
        holder.append(List.of(S), bytes("first")).join();
        leaseCovering(holder, S, tails);
      }
      long recorded = Long.parseLong(Files.readString(data.resolve("read-leases")).trim());
      assertThat(recorded).isGreaterThan(System.currentTimeMillis());
      try (Node node = Node.start(NodeConfig.durable(NODE, data), transport);
          ClusterStreamLog writer = client(transport, Duration.ZERO)) {
        writer.append(List.of(S), bytes("after restart")).get(20, TimeUnit.SECONDS);
        assertThat(System.currentTimeMillis())
            .as("first token after the recorded lease end")
            .isGreaterThanOrEqualTo(recorded);
      }
    }
  }

  @Test
  void aLeaseRequestWithoutAClientIdOrLengthIsRefused() throws Exception {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport);
        RpcClient raw = transport.newClient(ClientOptions.defaults())) {
      node.ready().join();
      Header.Builder header =
          Header.newBuilder()
              .setEpoch(node.layout().epoch())
              .setClusterId(node.layout().clusterId())
              .setProtocolVersion(1);
      Request noClient =
          Request.newBuilder()
              .setHeader(header)
              .setReadLease(ReadLeaseRequest.newBuilder().setLeaseMs(500).setApplied(-1))
              .build();
      assertThatThrownBy(() -> Errors.check(raw.call(NODE, noClient).get(5, TimeUnit.SECONDS)))
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining("client id");
      Request noLength =
          Request.newBuilder()
              .setHeader(header.clone().setClientId(StreamId.of("c").toMsg()))
              .setReadLease(ReadLeaseRequest.newBuilder().setApplied(-1))
              .build();
      assertThatThrownBy(() -> Errors.check(raw.call(NODE, noLength).get(5, TimeUnit.SECONDS)))
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining("at least 1 ms");
    }
  }

  @Test
  void leaseLengthsOutsideTheAllowedRangeAreRefusedByTheClientOptions() {
    assertThatThrownBy(() -> StreamLogOptions.defaults().withReadLease(Duration.ofMillis(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 10 ms");
    assertThatThrownBy(() -> StreamLogOptions.defaults().withReadLease(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
