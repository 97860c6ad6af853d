package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.Request;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A three-node cluster with replication 3 keeps serving when a node dies: the manager removes it
 * from every chain (and moves the sequencer when it was the sequencer), and every write
 * acknowledged before, during and after the change reads back at the addresses it was acknowledged
 * at.
 */
class FailoverTest {
  private static final StreamId STREAM = StreamId.of("failover");

  @TempDir Path tmp;

  /** One acknowledged append. */
  record Acked(String value, long globalAddress, long streamAddress) {}

  @Test
  void aStartingSequencerCommitsTheNextEpochBeforeItServes() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      Layout l = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      assertThat(l.sequencer()).isEqualTo(c.endpoints().get(0));
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 20);
      assertEveryAckedReadable(c, acked);
    }
  }

  @Test
  void killingAReplicaShrinksEveryChainAndLosesNoAcknowledgedWrite() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 30);
      Endpoint victim = c.endpoints().get(2);
      c.kill(victim);
      Layout after = c.awaitLayout("without " + victim, x -> x.removed().contains(victim));
      assertThat(after.allServers()).doesNotContain(victim);
      after
          .currentSegment()
          .log()
          .forEach(chain -> assertThat(chain).hasSize(2).doesNotContain(victim));
      appendUntil(c, acked, 60);
      assertEveryAckedReadable(c, acked);
    }
  }

  @Test
  void killingTheSequencerMovesItAndLosesNoAcknowledgedWrite() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 30);
      Endpoint sequencer = c.agreed().value().sequencer();
      c.kill(sequencer);
      Layout after = c.awaitLayout("without " + sequencer, x -> x.removed().contains(sequencer));
      assertThat(after.sequencer()).isNotEqualTo(sequencer);
      appendUntil(c, acked, 60);
      assertEveryAckedReadable(c, acked);
      // Global addresses of acknowledged writes are never issued twice.
      assertThat(acked.stream().map(Acked::globalAddress).distinct().count())
          .isEqualTo(acked.size());
    }
  }

  /**
   * A node restarted at once on a wiped data directory (before any probe could miss it) holds none
   * of the entries its chains count on it for. It must serve none of them: it runs on a new
   * incarnation of its directory, which the layout does not record, so it answers NotServing and
   * the manager removes it; every acknowledged write stays readable and appends go on. The node
   * chosen is the last replica of the stream's chain, the one its readers read.
   */
  @Test
  void aNodeRestartedOnAWipedDataDirectoryServesNothingAndIsRemoved() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitAdopted(c.awaitStarted().epoch());
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 30);
      List<Endpoint> chain = c.agreed().value().streamChain(STREAM);
      Endpoint wiped = chain.get(chain.size() - 1);
      assertThat(c.agreed().value().incarnations()).containsKey(wiped);

      c.restartWiped(wiped);

      Layout after = c.awaitLayout("without " + wiped, x -> x.removed().contains(wiped));
      assertThat(after.allServers()).doesNotContain(wiped);
      assertThat(after.incarnations()).doesNotContainKey(wiped);
      assertEveryAckedReadable(c, acked);
      appendUntil(c, acked, 50);
      assertEveryAckedReadable(c, acked);
    }
  }

  /**
   * A node whose port refuses connections (its process is gone) is removed at once; one that only
   * stays silent (cut off, or paused) is judged by the failure timeout. With a ten-minute failure
   * timeout: a node cut off for as long as 60 probes of it stays in the layout (a one-second
   * timeout would have removed it several times over); once it is back, another node is killed and
   * is removed, which only its refused connections can have caused; appends go on throughout.
   */
  @Test
  void aNodeThatRefusesConnectionsIsRemovedAtOnceASilentOneOnlyAfterTheFailureTimeout()
      throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3, Duration.ofMinutes(10))) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      c.awaitAdopted(2);
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 20);
      Endpoint manager = awaitManager(c);
      List<Endpoint> others = new ArrayList<>(c.endpoints());
      others.remove(manager);
      Endpoint silent = others.get(0);
      Endpoint killed = others.get(1);
      long epoch = c.agreed().value().epoch();

      AtomicInteger probes = new AtomicInteger();
      FaultRule countProbes =
          c.transport()
              .faults()
              .add(
                  FaultRule.requests()
                      .to(silent)
                      .ofCase(Request.PayloadCase.PING)
                      .when(q -> probes.incrementAndGet() > 0)
                      .drop());
      c.faults().partition(silent);
      Awaitility.await("60 unanswered probes of " + silent)
          .atMost(Duration.ofSeconds(60))
          .until(() -> probes.get() >= 60);
      assertThat(c.agreed().value().epoch()).as("no layout change").isEqualTo(epoch);
      assertThat(c.agreed().value().allServers()).contains(silent);
      c.transport().faults().remove(countProbes);
      c.faults().heal(silent);

      c.kill(killed);
      Layout after = c.awaitLayout("without " + killed, x -> x.removed().contains(killed));
      assertThat(after.removed()).containsExactly(killed);
      assertThat(after.allServers()).contains(silent);
      appendUntil(c, acked, 40);
      assertEveryAckedReadable(c, acked);
    }
  }

  /**
   * With the default probing (every 100 ms, failure timeout 1 s), a node that is silent without
   * refusing connections (cut off here, as a paused node looks) is removed. Every manager round
   * then waits out the probe interval for its answer; that wait must not be taken for a pause of
   * the manager itself, or the silence never adds up to the failure timeout.
   */
  @Test
  void withDefaultProbingASilentNodeIsRemoved() throws Exception {
    ClusterConfig defaults = ClusterConfig.of("unused", "unused");
    try (ZkCluster c =
        ZkCluster.start(tmp, 3, 3, defaults.probeInterval(), defaults.failureTimeout())) {
      c.awaitAdopted(c.awaitStarted().epoch());
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 20);
      Endpoint manager = awaitManager(c);
      Endpoint silent = c.endpoints().stream().filter(e -> !e.equals(manager)).findFirst().get();
      c.faults().partition(silent);
      Layout after = c.awaitLayout("without " + silent, x -> x.removed().contains(silent));
      assertThat(after.allServers()).doesNotContain(silent);
      appendUntil(c, acked, 40);
      assertEveryAckedReadable(c, acked);
    }
  }

  /**
   * The manager cut off from the other nodes, but not from ZooKeeper, hears nobody: it must not
   * keep the management (and with it every layout change) to itself. Another node takes over and
   * removes it.
   */
  @Test
  void aManagerCutOffFromTheOtherNodesHandsOverAndIsRemoved() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      c.awaitAdopted(2);
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 20);
      Endpoint manager = awaitManager(c);
      c.faults().partition(manager);
      Layout after = c.awaitLayout("without " + manager, x -> x.removed().contains(manager));
      assertThat(after.removed()).containsExactly(manager);
      // The others removed it while it still held the election; it hands the election over too.
      Awaitility.await("another manager")
          .atMost(Duration.ofSeconds(30))
          .until(() -> c.manager().filter(m -> !m.equals(manager)).isPresent());
      appendUntil(c, acked, 40);
      assertEveryAckedReadable(c, acked);
    }
  }

  @Test
  void whileZooKeeperIsDownTheDataPathKeepsServing() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 20);
      c.stopZooKeeper();
      // Well past the layout lease (500 ms): every node has had to renew it with its peers.
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
      ClusterStreamLog log = c.client(c.endpoints().get(1));
      int n = 0;
      while (System.nanoTime() - until < 0 || n < 20) {
        String value = "zk-down-" + n++;
        AppendResult r =
            log.append(List.of(STREAM), value.getBytes(StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS);
        acked.add(new Acked(value, r.globalAddress(), r.streamAddresses().get(STREAM)));
        assertThat(n).as("appends bounded").isLessThan(100_000);
      }
      assertEveryAckedReadable(c, acked);
      c.restartZooKeeper();
      appendUntil(c, acked, acked.size() + 10);
      assertEveryAckedReadable(c, acked);
    }
  }

  @Test
  void aSealedEpochSurvivesARestart() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      Layout l = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Endpoint node = c.endpoints().get(1);
      try (RpcClient rpc =
          c.transport()
              .newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(5)))) {
        NodeCalls calls = new NodeCalls(rpc);
        long sealed = l.epoch() + 5;
        assertThat(calls.seal(node, sealed).get(10, TimeUnit.SECONDS).getEpoch()).isEqualTo(sealed);
        c.restart(node);
        Awaitility.await("restarted " + node)
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(() -> calls.ping(node).get(1, TimeUnit.SECONDS).getSealedEpoch() >= sealed);
      }
    }
  }

  /**
   * Appends until {@code acked} holds {@code total} acknowledged values, each with a fresh client
   * after a failure (an append that failed may or may not have committed; it is not counted).
   */
  /** Waits until some node of {@code c} is the manager; returns it. */
  static Endpoint awaitManager(ZkCluster c) {
    return Awaitility.await("a manager")
        .atMost(Duration.ofSeconds(30))
        .until(c::manager, java.util.Optional::isPresent)
        .orElseThrow();
  }

  static void appendUntil(ZkCluster c, List<Acked> acked, int total) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    ClusterStreamLog log = null;
    int attempt = 0;
    while (acked.size() < total) {
      assertThat(System.nanoTime() - deadline).as("appends kept failing").isNegative();
      String value = "v" + acked.size() + "-" + attempt++;
      try {
        if (log == null) {
          log = c.client(anyLive(c));
        }
        AppendResult r =
            log.append(List.of(STREAM), value.getBytes(StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS);
        acked.add(new Acked(value, r.globalAddress(), r.streamAddresses().get(STREAM)));
      } catch (Exception e) {
        log = null;
      }
    }
  }

  /**
   * As {@link #appendUntil}, with up to {@code inFlight} appends outstanding at once: for loading a
   * healthy cluster before a fault, the same entries in a fraction of the time. Once a round has an
   * append fail, the rest go one at a time through {@link #appendUntil}.
   */
  static void appendConcurrently(ZkCluster c, List<Acked> acked, int total, int inFlight) {
    ClusterStreamLog log = c.client(anyLive(c));
    for (int round = 0; acked.size() < total; round++) {
      List<String> values = new ArrayList<>();
      List<java.util.concurrent.CompletableFuture<AppendResult>> appends = new ArrayList<>();
      for (int i = 0; i < Math.min(inFlight, total - acked.size()); i++) {
        String value = "v" + (acked.size() + i) + "-r" + round;
        values.add(value);
        appends.add(log.append(List.of(STREAM), value.getBytes(StandardCharsets.UTF_8)));
      }
      boolean failed = false;
      for (int i = 0; i < appends.size(); i++) {
        try {
          AppendResult r = appends.get(i).get(10, TimeUnit.SECONDS);
          acked.add(new Acked(values.get(i), r.globalAddress(), r.streamAddresses().get(STREAM)));
        } catch (Exception e) {
          failed = true;
        }
      }
      if (failed) {
        appendUntil(c, acked, total);
      }
    }
  }

  /** A running node (asked of the nodes, not of ZooKeeper, which may be down). */
  private static Endpoint anyLive(ZkCluster c) {
    return c.endpoints().stream()
        .filter(e -> c.node(e) != null && c.node(e).layout() != null)
        .filter(e -> c.node(e).layout().allServers().contains(e))
        .findFirst()
        .orElseThrow();
  }

  /**
   * Every acknowledged write reads back at its addresses, and every replica of every chain (of the
   * layout a live node has adopted) holds the same entries.
   */
  static void assertEveryAckedReadable(ZkCluster c, List<Acked> acked) {
    Awaitility.await("every acknowledged write readable")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              ClusterStreamLog log = c.client(anyLive(c));
              long last = acked.stream().mapToLong(Acked::streamAddress).max().orElse(-1);
              List<StreamEntry> entries = log.readStream(STREAM, 0, last).get(10, TimeUnit.SECONDS);
              assertThat(entries).hasSize((int) last + 1);
              for (Acked a : acked) {
                StreamEntry e = entries.get((int) a.streamAddress());
                assertThat(e.isHole()).as("slot of %s", a).isFalse();
                assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(a.value());
                assertThat(e.globalAddress()).isEqualTo(a.globalAddress());
              }
              Endpoint live = anyLive(c);
              ReplicaAgreement.assertReplicasAgree(
                  c.client(live), c.node(live).layout(), List.of(STREAM));
            });
  }
}
