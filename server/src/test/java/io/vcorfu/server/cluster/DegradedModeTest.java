package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.runtime.VCorfuRuntime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paper's degraded mode, in process (real nodes, real ZooKeeper), on a layout whose log and
 * stream replicas are separate nodes ({@code [[n1, n2]]} log, {@code [[n3], [n4]]} stream, R = 2):
 * the only replica of a stream chain dies; the manager leaves that chain empty, and appends to its
 * streams go on, decided by the log; reads of them come from the log. Then the sequencer dies too,
 * and its successor learns those streams' tails from the log (no stream address is issued twice).
 * Then a spare takes the chain up: it decides the chain's new entries at once, copies the older
 * ones from the log, and serves reads again. Every acknowledged write reads back throughout, the
 * new replica holds exactly what the log shows, and every replica of every chain agrees.
 */
class DegradedModeTest {
  private static final int STREAMS = 12;

  @TempDir Path tmp;

  @Test
  void aStreamChainWithNoReplicaKeepsTakingAppendsAndIsTakenUpFromTheLog() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 4, DegradedModeTest::separateRoles);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      Endpoint n1 = c.endpoints().get(0);
      Endpoint n2 = c.endpoints().get(1);
      Endpoint n3 = c.endpoints().get(2);
      Layout first = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<StreamId> streams = AckedWrites.streams("degraded-", STREAMS);
      List<StreamId> lost = streams.stream().filter(s -> first.streamChainIndex(s) == 0).toList();
      assertThat(lost).as("streams on the chain that will lose its replica").isNotEmpty();
      List<AckedWrites.Acked> acked = new ArrayList<>();
      String accountName = objectOn(first, 0);
      VCorfuRuntime objects = c.runtime(ZkCluster.clientOptions());
      Account account = objects.objects().open(accountName, Account.class);
      account.set(1);
      Endpoint spare;
      try (AckedWrites.Writer w = new AckedWrites.Writer(c, streams, acked, n2)) {
        w.awaitAcked(100);
        c.kill(n3);
        Layout degraded =
            c.awaitLayout(
                "stream chain 0 empty", l -> l.currentSegment().stream().get(0).isEmpty());
        assertThat(LayoutChanges.emptyStreamChains(degraded)).containsExactly(0);
        int before = countOn(acked, lost);
        awaitAckedOn(acked, lost, before + 40, "appends to the streams without a replica");
        ClusterStreamLog reader = c.client(n2);
        for (StreamId s : lost) {
          long tail = reader.tails(List.of(s)).get(10, TimeUnit.SECONDS).streamTails().get(s);
          assertThat(reader.readStream(s, 0, tail).get(30, TimeUnit.SECONDS))
              .hasSize((int) tail + 1);
        }
        assertThat(reader.degradedReads()).as("reads of them came from the log").isPositive();
        account.set(2);
        try (VCorfuRuntime fresh = c.runtime(ZkCluster.clientOptions())) {
          assertThat(fresh.objects().open(accountName, Account.class).balance())
              .as("an object view of a stream with no replica, played from the log")
              .isEqualTo(2);
        }

        c.kill(n1);
        c.awaitLayout("the sequencer moved", l -> l.removed().contains(n1));
        before = countOn(acked, lost);
        awaitAckedOn(acked, lost, before + 40, "appends after the sequencer moved");

        spare = c.startSpare();
        new NodeCalls(rpc).addNode(n2, spare).get(30, TimeUnit.SECONDS);
        Layout takenUp =
            c.awaitLayout(
                spare + " takes the chain up",
                l -> l.currentSegment().stream().get(0).equals(List.of(spare)));
        assertThat(takenUp.streamChainSince(0)).isEqualTo(takenUp.epoch());
        Awaitility.await(spare + " serves reads of the chain's streams")
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(
                () -> {
                  for (StreamId s : lost) {
                    c.client(n2).ops().streamRead(spare, s, 0, 0).get(5, TimeUnit.SECONDS);
                  }
                  return true;
                });
        assertThat(c.node(spare).takenUpFromLog())
            .as("older entries copied from the log")
            .isPositive();
        account.set(3);
        try (VCorfuRuntime fresh = c.runtime(ZkCluster.clientOptions())) {
          assertThat(fresh.objects().open(accountName, Account.class).balance())
              .as("the same object view, played from the replica that took the chain up")
              .isEqualTo(3);
        }
        before = countOn(acked, lost);
        awaitAckedOn(acked, lost, before + 40, "appends after the takeover");
      } finally {
        objects.close();
      }

      assertNoStreamAddressTwice(acked);
      AckedWrites.assertEveryAckedReadable(c, acked, n2);
      ClusterStreamLog log = c.client(n2);
      assertReplicaHoldsWhatTheLogShows(log, spare, lost);
      ReplicaAgreement.assertReplicasAgree(log, c.agreed().value(), streams);
    }
  }

  /** Log chain [n1, n2], stream chains [n3] and [n4], R = 2. */
  private static Layout separateRoles(List<Endpoint> nodes) {
    return Layout.fromJson(
        """
        {"clusterId": "%s", "epoch": 1, "sequencer": "%s", "replication": 2,
         "segments": [{"start": 0, "end": -1, "log": [["%s", "%s"]], "stream": [["%s"], ["%s"]]}]}
        """
            .formatted(
                ZkCluster.NAME,
                nodes.get(0),
                nodes.get(0),
                nodes.get(1),
                nodes.get(2),
                nodes.get(3)));
  }

  /**
   * A planned removal never leaves a stream chain to the log (a failure may): with no other node
   * serving stream chains to drain it onto, removing the only replica of a stream chain is refused
   * and changes nothing.
   */
  @Test
  void removingTheOnlyReplicaOfAStreamChainIsRefusedWhenNoNodeCanTakeIt() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, DegradedModeTest::oneStreamNode);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      Layout first = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Endpoint n2 = c.endpoints().get(1);
      Endpoint n3 = c.endpoints().get(2);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> new NodeCalls(rpc).removeNode(n2, n3).get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(io.vcorfu.protocol.BadRequestException.class)
          .hasMessageContaining("only replica of stream chains [0]");
      Layout after = c.agreed().value();
      assertThat(after.allServers()).containsAll(first.allServers());
      assertThat(after.draining()).isEmpty();
      assertThat(after.currentSegment().stream()).isEqualTo(first.currentSegment().stream());
    }
  }

  /** Log chain [n1, n2] and one stream chain [n3], R = 2: n1 and n2 serve no stream chain. */
  private static Layout oneStreamNode(List<Endpoint> nodes) {
    return Layout.fromJson(
        """
        {"clusterId": "%s", "epoch": 1, "sequencer": "%s", "replication": 2,
         "segments": [{"start": 0, "end": -1, "log": [["%s", "%s"]], "stream": [["%s"]]}]}
        """
            .formatted(ZkCluster.NAME, nodes.get(0), nodes.get(0), nodes.get(1), nodes.get(2)));
  }

  /**
   * The node taking an empty chain up dies while it copies from the log (slowly, at 2 kB/s): the
   * chain is empty again, and the next node takes it up from the start; appends go on throughout,
   * and the chain's new replica ends holding exactly what the log shows.
   */
  @Test
  void aNodeKilledWhileItTakesAChainUpLeavesItToTheNext() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 4, DegradedModeTest::separateRoles);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      Endpoint n2 = c.endpoints().get(1);
      Endpoint n3 = c.endpoints().get(2);
      Layout first = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<StreamId> streams = AckedWrites.streams("taken-up-", STREAMS);
      List<StreamId> lost = streams.stream().filter(s -> first.streamChainIndex(s) == 0).toList();
      List<AckedWrites.Acked> acked = new ArrayList<>();
      NodeCalls calls = new NodeCalls(rpc);
      Endpoint second;
      try (AckedWrites.Writer w = new AckedWrites.Writer(c, streams, acked, n2)) {
        w.awaitAcked(300);
        c.kill(n3);
        c.awaitLayout("stream chain 0 empty", l -> l.currentSegment().stream().get(0).isEmpty());
        Endpoint slow = c.startSpare(2_000);
        calls.addNode(n2, slow).get(30, TimeUnit.SECONDS);
        c.awaitLayout(
            slow + " takes the chain up",
            l -> l.currentSegment().stream().get(0).equals(List.of(slow)));
        Awaitility.await(slow + " copying from the log")
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    calls.ping(slow).get(5, TimeUnit.SECONDS).getTakeover().getEntriesCopied() > 0);
        assertThat(calls.ping(slow).get(5, TimeUnit.SECONDS).getTakeover().getSinceEpoch())
            .as("its ping answer says what it copies, for `cluster status`")
            .isEqualTo(c.agreed().value().streamChainSince(0));
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () ->
                    c.client(n2).ops().streamRead(slow, lost.get(0), 0, 0).get(5, TimeUnit.SECONDS))
            .as("it serves no reads of the chain's streams before its copy is done")
            .hasCauseInstanceOf(io.vcorfu.protocol.NotServingException.class);
        c.kill(slow);
        Layout again =
            c.awaitLayout(
                "stream chain 0 empty again",
                l -> l.removed().contains(slow) && l.currentSegment().stream().get(0).isEmpty());
        assertThat(again.streamSince()).isEmpty();
        int before = countOn(acked, lost);
        awaitAckedOn(acked, lost, before + 40, "appends while the chain is empty again");
        second = c.startSpare();
        calls.addNode(n2, second).get(30, TimeUnit.SECONDS);
        c.awaitLayout(
            second + " takes the chain up",
            l -> l.currentSegment().stream().get(0).equals(List.of(second)));
        Awaitility.await(second + " serves reads of the chain's streams")
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(
                () -> {
                  c.client(n2).ops().streamRead(second, lost.get(0), 0, 0).get(5, TimeUnit.SECONDS);
                  return true;
                });
        before = countOn(acked, lost);
        awaitAckedOn(acked, lost, before + 40, "appends after the second takeover");
      }
      assertNoStreamAddressTwice(acked);
      AckedWrites.assertEveryAckedReadable(c, acked, n2);
      assertReplicaHoldsWhatTheLogShows(c.client(n2), second, lost);
      ReplicaAgreement.assertReplicasAgree(c.client(n2), c.agreed().value(), streams);
    }
  }

  /** {@code replica} holds, for every slot of {@code streams}, what a read from the log gives. */
  private static void assertReplicaHoldsWhatTheLogShows(
      ClusterStreamLog log, Endpoint replica, List<StreamId> streams) throws Exception {
    for (StreamId s : streams) {
      long tail = log.tails(List.of(s)).get(10, TimeUnit.SECONDS).streamTails().get(s);
      List<StreamEntry> fromLog = log.readStreamFromLog(s, 0, tail).get(30, TimeUnit.SECONDS);
      List<ReadResult> held = log.ops().streamRead(replica, s, 0, tail).get(10, TimeUnit.SECONDS);
      assertThat(held).hasSize(fromLog.size());
      for (int i = 0; i < held.size(); i++) {
        ReadResult r = held.get(i);
        StreamEntry e = fromLog.get(i);
        String mine =
            r.getEntry().getKind() == io.vcorfu.protocol.proto.EntryKind.HOLE
                ? "hole"
                : r.getEntry().getPayload().toStringUtf8();
        String logs = e.isHole() ? "hole" : new String(e.payload(), StandardCharsets.UTF_8);
        assertThat(mine).as("slot %d of %s on %s against the log", i, s, replica).isEqualTo(logs);
      }
    }
  }

  /** The name of an object whose stream is placed on stream chain {@code index}. */
  private static String objectOn(Layout layout, int index) {
    for (int i = 0; ; i++) {
      String name = "degraded-account-" + i;
      if (layout.streamChainIndex(StreamId.of(name)) == index) {
        return name;
      }
    }
  }

  private static int countOn(List<AckedWrites.Acked> acked, List<StreamId> streams) {
    synchronized (acked) {
      return (int) acked.stream().filter(a -> streams.contains(a.stream())).count();
    }
  }

  private static void awaitAckedOn(
      List<AckedWrites.Acked> acked, List<StreamId> streams, int n, String what) {
    Awaitility.await(what).atMost(Duration.ofSeconds(60)).until(() -> countOn(acked, streams) >= n);
  }

  /** No stream address was acknowledged for two different appends. */
  private static void assertNoStreamAddressTwice(List<AckedWrites.Acked> acked) {
    Map<String, String> seen = new HashMap<>();
    synchronized (acked) {
      for (AckedWrites.Acked a : acked) {
        String slot = a.stream() + "@" + a.streamAddress();
        assertThat(seen.put(slot, a.value()))
            .as("stream address %s acknowledged twice", slot)
            .isNull();
      }
    }
  }
}
