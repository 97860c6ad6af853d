package io.vcorfu.sequencer;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The sequencer's bootstrap against peers faked through {@link SequencerBootstrap.Peers}. */
class SequencerBootstrapTest {
  private static final Endpoint NODE = new Endpoint("node", 9000);
  private static final StreamId A = StreamId.of("a");

  /** A node already sealed at epoch 7, whose log replica fails its first tail query. */
  private static final class FakePeers implements SequencerBootstrap.Peers {
    final List<Long> sealsAsked = Collections.synchronizedList(new ArrayList<>());
    final List<Long> tailsAskedAt = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger logTailCalls = new AtomicInteger();

    @Override
    public CompletableFuture<Long> seal(Endpoint node, long epoch) {
      sealsAsked.add(epoch);
      return CompletableFuture.completedFuture(Math.max(epoch, 7));
    }

    @Override
    public CompletableFuture<Long> logTail(Endpoint node, long epoch) {
      tailsAskedAt.add(epoch);
      if (logTailCalls.getAndIncrement() == 0) {
        return CompletableFuture.failedFuture(new IllegalStateException("not up yet"));
      }
      return CompletableFuture.completedFuture(10L);
    }

    @Override
    public CompletableFuture<SequencerBootstrap.StreamReplicaTails> streamTails(
        Endpoint node, long epoch) {
      tailsAskedAt.add(epoch);
      return CompletableFuture.completedFuture(
          new SequencerBootstrap.StreamReplicaTails(12, Map.of(A, new StreamTail(3, 12))));
    }

    final AtomicInteger logStreamTailCalls = new AtomicInteger();

    /** The addresses the log replica reports marked lost (its highest), and how many it holds. */
    List<Long> lost = List.of();

    long lostTotal;

    @Override
    public CompletableFuture<SequencerBootstrap.StreamReplicaTails> logStreamTails(
        Endpoint node, long epoch) {
      logStreamTailCalls.incrementAndGet();
      // The log holds a later entry of A than the stream replicas know, and B's entries only.
      return CompletableFuture.completedFuture(
          new SequencerBootstrap.StreamReplicaTails(
              20, Map.of(A, new StreamTail(5, 18), B, new StreamTail(9, 20)), lost, lostTotal));
    }
  }

  private static final StreamId B = StreamId.of("b");

  @Test
  void readsStreamTailsFromTheLogOnlyWhileAStreamChainHasNoReplica() throws Exception {
    Endpoint other = new Endpoint("other", 9000);
    Layout degraded =
        Layout.fromJson(
            """
            {"clusterId": "test", "epoch": 9, "sequencer": "%s", "replication": 1,
             "segments": [{"start": 0, "end": -1, "log": [["%s"]], "stream": [["%s"], []]}]}
            """
                .formatted(NODE, NODE, other));
    assertThat(SequencerBootstrap.needsLogStreamTails(degraded)).isTrue();
    assertThat(SequencerBootstrap.needsLogStreamTails(Layout.singleNode(NODE, "test"))).isFalse();
    FakePeers peers = new FakePeers();
    try (SequencerService sequencer = new SequencerService(new Sequencer(100));
        SequencerBootstrap bootstrap = SequencerBootstrap.atEpoch(peers, degraded, sequencer)) {
      bootstrap.start();
      bootstrap.done().get(10, TimeUnit.SECONDS);

      assertThat(peers.logStreamTailCalls.get()).isPositive();
      TokenResponse r =
          sequencer
              .token(TokenRequest.newBuilder().addStreams(A.toMsg()).addStreams(B.toMsg()).build())
              .join();
      Token t = r.getTokens(0);
      assertThat(t.getGlobalAddress()).as("above the log's tail").isEqualTo(21);
      assertThat(t.getSlots(0).getStreamAddress()).as("A after the log's entry 5").isEqualTo(6);
      assertThat(t.getSlots(0).getBackpointer()).isEqualTo(18);
      assertThat(t.getSlots(1).getStreamAddress()).as("B, known to the log alone").isEqualTo(10);
      assertThat(t.getSlots(1).getBackpointer()).isEqualTo(20);
    }
  }

  /**
   * A stream only the log knows may have lost entries above its last entry the log shows, at
   * addresses marked lost: its next slot goes past one per such address, and its backpointer leads
   * to the highest of them, so no slot a lost entry held is issued again. A stream the stream
   * replicas know is not moved.
   */
  @ParameterizedTest(name = "lost {0} of {1}: B issues from {2}")
  @CsvSource({
    "'4,22,24', 3, 12, 24", // two above B's last entry at 20
    "'30', 5, 15, 30", // a truncated list that stops above 20: all five may be B's
    "'4,7', 2, 10, 20" // none above: B as the log shows it
  })
  void aStreamOnlyTheLogKnowsIsIssuedPastTheAddressesMarkedLost(
      String lost, long total, long nextSlot, long backpointer) throws Exception {
    Endpoint other = new Endpoint("other", 9000);
    Layout degraded =
        Layout.fromJson(
            """
            {"clusterId": "test", "epoch": 9, "sequencer": "%s", "replication": 1,
             "segments": [{"start": 0, "end": -1, "log": [["%s"]], "stream": [["%s"], []]}]}
            """
                .formatted(NODE, NODE, other));
    FakePeers peers = new FakePeers();
    peers.lost = java.util.Arrays.stream(lost.split(",")).map(Long::valueOf).toList();
    peers.lostTotal = total;
    try (SequencerService sequencer = new SequencerService(new Sequencer(100));
        SequencerBootstrap bootstrap = SequencerBootstrap.atEpoch(peers, degraded, sequencer)) {
      bootstrap.start();
      bootstrap.done().get(10, TimeUnit.SECONDS);
      Token t =
          sequencer
              .token(TokenRequest.newBuilder().addStreams(A.toMsg()).addStreams(B.toMsg()).build())
              .join()
              .getTokens(0);
      assertThat(t.getSlots(0).getStreamAddress()).as("A, known to a stream replica").isEqualTo(6);
      assertThat(t.getSlots(1).getStreamAddress()).isEqualTo(nextSlot);
      assertThat(t.getSlots(1).getBackpointer()).isEqualTo(backpointer);
    }
  }

  @Test
  void sealsAboveTheHighestEpochSeenThenServesTheReplicasTails() throws Exception {
    FakePeers peers = new FakePeers();
    try (SequencerService sequencer = new SequencerService(new Sequencer(100));
        SequencerBootstrap bootstrap =
            new SequencerBootstrap(peers, Layout.singleNode(NODE, "test"), sequencer)) {
      bootstrap.start();
      bootstrap.done().get(10, TimeUnit.SECONDS);

      assertThat(peers.sealsAsked)
          .as("epoch 2 proposed, then above the 7 answered")
          .contains(2L, 8L);
      assertThat(peers.tailsAskedAt).as("tails read at the sealed epoch only").containsOnly(8L);
      assertThat(peers.logTailCalls.get()).as("a failed tail query is retried").isGreaterThan(1);
      TokenResponse r =
          sequencer.token(TokenRequest.newBuilder().addStreams(A.toMsg()).build()).join();
      Token t = r.getTokens(0);
      assertThat(r.getEpoch()).isEqualTo(8);
      assertThat(t.getGlobalAddress()).isEqualTo(13);
      assertThat(t.getSlots(0).getStreamAddress()).isEqualTo(4);
    }
  }
}
