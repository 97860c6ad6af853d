package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Growth in process (real nodes, real ZooKeeper): a fourth node added with {@code grow} while
 * clients append to many streams (entries of one stream, and entries of two) first splits the three
 * stream chains in two (half of each chain's streams move to its child, which starts with the same
 * members), joins some of the six as a rebuilding replica, copies them, is promoted (each such
 * chain gives up one other member) and serves log chains of a new segment; every acknowledged write
 * reads back from the grown cluster, in every stream it was written to, and every replica of every
 * chain holds the same entries. Killing the growing node mid-copy leaves the cluster as it was,
 * serving.
 */
class GrowTest {
  private static final int STREAMS = 12;

  @TempDir Path tmp;

  @ParameterizedTest(name = "R = {0}")
  @ValueSource(ints = {2, 3})
  void aFourthNodeTakesAShareOfTheChainsWhileClientsAppend(int r) throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, r);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      Layout first = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<AckedWrites.Acked> acked = new ArrayList<>();
      List<AckedWrites.Acked> ackedPairs = new ArrayList<>();
      try (AckedWrites.Writer w = new AckedWrites.Writer(c, streams(), acked);
          AckedWrites.Writer pairs = AckedWrites.Writer.pairs(c, streams(), ackedPairs)) {
        w.awaitAcked(60);
        pairs.awaitAcked(60);
        Endpoint d = c.startSpare();
        Layout joined =
            Layout.fromJson(
                new NodeCalls(rpc)
                    .addNode(c.endpoints().get(0), d, true)
                    .get(30, TimeUnit.SECONDS)
                    .getLayoutJson());
        // Three stream chains for four nodes: each splits in two first.
        int p = first.currentSegment().stream().size();
        assertThat(p).isEqualTo(3);
        assertThat(joined.streamSplits()).isEqualTo(1);
        assertThat(joined.currentSegment().stream()).hasSize(2 * p);
        int k = 2 * p * r / 4;
        assertThat(joined.isRebuilding(d)).isTrue();
        assertThat(joined.currentSegment().stream()).filteredOn(ch -> ch.contains(d)).hasSize(k);

        Layout grown =
            Awaitility.await(d + " rebuilt and promoted")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(
                    () -> c.agreed().value(),
                    l ->
                        l.allServers().contains(d)
                            && !l.isRebuilding(d)
                            && l.currentSegment().log().size() == 4);
        assertThat(c.node(d).lastRebuild()).as("it copied its chains first").isNotNull();
        assertThat(LayoutChanges.underReplicated(grown)).isEmpty();
        assertThat(grown.currentSegment().stream()).allSatisfy(ch -> assertThat(ch).hasSize(r));
        assertThat(grown.currentSegment().stream()).filteredOn(ch -> ch.contains(d)).hasSize(k);
        assertThat(grown.currentSegment().log()).filteredOn(ch -> ch.contains(d)).hasSize(r);
        assertThat(streams())
            .as("some streams moved to the split's new chains")
            .anyMatch(s -> grown.streamChainIndex(s) >= p);
        int before = w.count();
        w.awaitAcked(before + 60);
        pairs.awaitAcked(pairs.count() + 60);
      }
      assertEverythingReadsBackAndAgrees(c, acked, ackedPairs);
    }
  }

  @ParameterizedTest(name = "R = {0}")
  @ValueSource(ints = {3})
  void theGrowingNodeKilledMidCopyLeavesTheClusterServingAsBefore(int r) throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, r);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<AckedWrites.Acked> acked = new ArrayList<>();
      try (AckedWrites.Writer w = new AckedWrites.Writer(c, streams(), acked)) {
        w.awaitAcked(200);
        Endpoint d = c.startSpare(2_000);
        NodeCalls calls = new NodeCalls(rpc);
        calls.addNode(c.endpoints().get(0), d, true).get(30, TimeUnit.SECONDS);
        RebuildWait.awaitCopying(calls, d);
        // A second node cannot grow the cluster while the first one rebuilds.
        Endpoint e = c.startSpare();
        ExecutionException refused =
            org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class,
                () -> calls.addNode(c.endpoints().get(0), e, true).get(30, TimeUnit.SECONDS));
        assertThat(refused.getCause())
            .isInstanceOf(BadRequestException.class)
            .hasMessageContaining("rebuilding");
        c.kill(d);
        Layout after =
            c.awaitLayout("without " + d, l -> l.removed().contains(d) && !l.isRebuilding(d));
        assertThat(after.currentSegment().stream()).allSatisfy(ch -> assertThat(ch).hasSize(r));
        assertThat(after.allServers()).doesNotContain(d);
        int before = w.count();
        w.awaitAcked(before + 40);
      }
      AckedWrites.assertEveryAckedReadable(c, acked);
      ReplicaAgreement.assertReplicasAgree(
          c.client(c.endpoints().get(0)), c.agreed().value(), streams());
    }
  }

  /**
   * An old member killed while the growing node copies the split chains from it: the cluster takes
   * the dead node out (every chain keeps the members it had besides it, a split child's as well),
   * the new node goes on copying from the survivors and is promoted; entries of one and of two
   * streams acknowledged throughout read back, and every replica agrees.
   */
  @ParameterizedTest(name = "R = {0}")
  @ValueSource(ints = {3})
  void anOldMemberKilledWhileTheNewNodeCopiesLosesNothing(int r) throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, r);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<AckedWrites.Acked> acked = new ArrayList<>();
      List<AckedWrites.Acked> ackedPairs = new ArrayList<>();
      try (AckedWrites.Writer w = new AckedWrites.Writer(c, streams(), acked);
          AckedWrites.Writer pairs = AckedWrites.Writer.pairs(c, streams(), ackedPairs)) {
        w.awaitAcked(200);
        pairs.awaitAcked(100);
        Endpoint d = c.startSpare(8_000);
        NodeCalls calls = new NodeCalls(rpc);
        Layout joined =
            Layout.fromJson(
                calls
                    .addNode(c.endpoints().get(0), d, true)
                    .get(30, TimeUnit.SECONDS)
                    .getLayoutJson());
        assertThat(joined.streamSplits()).isEqualTo(1);
        RebuildWait.awaitCopying(calls, d);
        // Not the sequencer (the writers' seed): the last node, in every chain of the three.
        Endpoint victim = c.endpoints().get(2);
        c.kill(victim);
        // At 8 kB/s the copy takes seconds, so the kill lands mid-copy: once the victim is gone,
        // every closed log chain is short, and the new node copies those segments' log too (about
        // 60 kB).
        Layout after =
            Awaitility.await(victim + " removed and " + d + " promoted")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(20))
                .until(
                    () -> c.agreed().value(),
                    l ->
                        l.removed().contains(victim)
                            && l.allServers().contains(d)
                            && !l.isRebuilding(d));
        assertThat(after.allServers()).doesNotContain(victim);
        assertThat(after.currentSegment().stream()).hasSize(6);
        int before = w.count();
        w.awaitAcked(before + 60);
        pairs.awaitAcked(pairs.count() + 30);
      }
      assertEverythingReadsBackAndAgrees(c, acked, ackedPairs);
    }
  }

  /**
   * Every acknowledged append, of one stream or two, reads back where it was acknowledged, and
   * every replica of every chain holds the same entries.
   */
  private static void assertEverythingReadsBackAndAgrees(
      ZkCluster c, List<AckedWrites.Acked> acked, List<AckedWrites.Acked> ackedPairs)
      throws Exception {
    List<AckedWrites.Acked> all = new ArrayList<>(acked);
    all.addAll(ackedPairs);
    AckedWrites.assertEveryAckedReadable(c, all);
    ReplicaAgreement.assertReplicasAgree(
        c.client(c.endpoints().get(0)), c.agreed().value(), streams());
  }

  private static List<StreamId> streams() {
    return AckedWrites.streams("grow-", STREAMS);
  }
}
