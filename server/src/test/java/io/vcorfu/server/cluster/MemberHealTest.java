package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.JoinedChains;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.Segment;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Healing onto members in process (real nodes, real ZooKeeper): in a cluster with more nodes than R
 * and no spare, the chains a failed node left short are joined by nodes that were not in them, each
 * a rebuilding replica of those chains only while it keeps serving its own; they copy, are
 * promoted, and the cluster is back at R with one node fewer. Clients append to many streams
 * (entries of one stream and of two) throughout; every acknowledged write reads back and every
 * replica of every chain holds the same entries.
 */
class MemberHealTest {
  private static final int STREAMS = 12;

  @TempDir Path tmp;

  @ParameterizedTest(name = "N = 4, R = {0}")
  @ValueSource(ints = {2, 3})
  void theChainsOfAFailedNodeAreRebuiltOnTheOtherNodes(int r) throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 4, r, k -> k.withMemberHealDelay(Duration.ZERO))) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Map<Long, Layout> seen = new ConcurrentHashMap<>();
      List<AckedWrites.Acked> acked = new ArrayList<>();
      List<AckedWrites.Acked> ackedPairs = new ArrayList<>();
      try (AckedWrites.Writer w = new AckedWrites.Writer(c, streams(), acked);
          AckedWrites.Writer pairs = AckedWrites.Writer.pairs(c, streams(), ackedPairs)) {
        w.awaitAcked(150);
        pairs.awaitAcked(80);
        Endpoint victim = c.endpoints().get(2);
        c.kill(victim);

        Layout healed =
            Awaitility.await("the chains of " + victim + " rebuilt on the other nodes")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(20))
                .until(
                    () -> {
                      Layout l = c.agreed().value();
                      seen.put(l.epoch(), l);
                      return l;
                    },
                    l -> l.removed().contains(victim) && fullStrength(l));
        List<Layout> rebuilding =
            seen.values().stream().filter(l -> !l.rebuildingChains().isEmpty()).toList();
        assertThat(rebuilding).as("layouts with a member rebuilding some chains").isNotEmpty();
        for (Layout l : rebuilding) {
          for (Map.Entry<Endpoint, JoinedChains> e : l.rebuildingChains().entrySet()) {
            Segment open = l.currentSegment();
            // It keeps serving (and deciding) the chains it was in.
            assertThat(open.log().stream().filter(ch -> ch.contains(e.getKey())).count())
                .as("%s at epoch %d", e.getKey(), l.epoch())
                .isGreaterThan(e.getValue().log().size());
            for (int i = 0; i < open.log().size(); i++) {
              List<Endpoint> serving = l.serving(open, true, i);
              assertThat(serving).as("log chain %d at epoch %d", i, l.epoch()).isNotEmpty();
              assertThat(serving.contains(e.getKey()))
                  .isEqualTo(
                      open.log().get(i).contains(e.getKey()) && !e.getValue().log().contains(i));
            }
          }
        }
        assertThat(healed.allServers()).doesNotContain(victim);
        assertThat(healed.spares()).isEmpty();
        int before = w.count();
        w.awaitAcked(before + 60);
        pairs.awaitAcked(pairs.count() + 30);
      }
      List<AckedWrites.Acked> all = new ArrayList<>(acked);
      all.addAll(ackedPairs);
      AckedWrites.assertEveryAckedReadable(c, all);
      ReplicaAgreement.assertReplicasAgree(
          c.client(c.endpoints().get(0)), c.agreed().value(), streams());
    }
  }

  /**
   * A member killed while it copies the chains it joined: it is removed (its own chains lose it
   * too); when it and the failed node come back they rejoin as returning nodes, which restore every
   * chain; the cluster ends at full strength with nothing acknowledged lost.
   */
  @Test
  void aMemberKilledMidCopyComesBackAndTheClusterEndsAtFullStrength() throws Exception {
    try (ZkCluster c =
            ZkCluster.start(
                tmp, 5, 3, k -> k.withMemberHealDelay(Duration.ZERO).withRebuildRate(2_000));
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<AckedWrites.Acked> acked = new ArrayList<>();
      try (AckedWrites.Writer w = new AckedWrites.Writer(c, streams(), acked)) {
        w.awaitAcked(300);
        Endpoint victim = c.endpoints().get(4);
        c.kill(victim);
        Layout joined =
            c.awaitLayout("a member joins the short chains", l -> !l.rebuildingChains().isEmpty());
        Endpoint member = joined.rebuildingChains().keySet().iterator().next();
        NodeCalls calls = new NodeCalls(rpc);
        RebuildWait.awaitCopying(calls, member);
        c.kill(member);
        c.awaitLayout("without " + member, l -> l.removed().contains(member));
        w.awaitAcked(w.count() + 40);

        c.restart(member, false, 64L << 20);
        c.restart(victim, false, 64L << 20);
        // Full strength may come back before the member is in again (the other nodes suffice):
        // both are what this test waits for.
        Layout healed =
            Awaitility.await("full strength again, the member back in")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(50))
                .until(
                    () -> c.agreed().value(),
                    l -> fullStrength(l) && l.allServers().contains(member));
        assertThat(healed.allServers()).contains(member);
        w.awaitAcked(w.count() + 40);
      }
      AckedWrites.assertEveryAckedReadable(c, acked);
      ReplicaAgreement.assertReplicasAgree(
          c.client(c.endpoints().get(0)), c.agreed().value(), streams());
    }
  }

  /**
   * {@code remove-node} with no spare, in a cluster with more nodes than R: the node is drained
   * onto the other nodes. They take its places one node at a time, each a rebuilding replica of the
   * chains it takes while it serves its own, and its promotion takes the leaving node out of those
   * chains; once it holds no place it leaves (the sequencer moves when it was the sequencer). Every
   * layout version a ZooKeeper watch saw keeps R serving replicas in every chain of its current
   * segment; nothing acknowledged is lost and every replica agrees.
   */
  @ParameterizedTest(name = "N = 4, R = {0}, node {1}")
  @CsvSource({"3, 0", "2, 2"})
  void aNodeRemovedOnRequestWithNoSpareIsDrainedOntoTheOtherNodes(int r, int oldIndex)
      throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 4, r);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      Layout first = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Endpoint old = c.endpoints().get(oldIndex);
      boolean wasSequencer = first.sequencer().equals(old);
      List<Versioned<Layout>> history = new CopyOnWriteArrayList<>();
      List<AckedWrites.Acked> acked = new ArrayList<>();
      ZkLayoutStore.Watch watch = c.store().watch(history::add);
      Layout drained;
      try (watch;
          AckedWrites.Writer w = new AckedWrites.Writer(c, streams(), acked)) {
        w.awaitAcked(150);
        Layout asked =
            Awaitility.await("the manager hears every node")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(
                    () ->
                        Layout.fromJson(
                            new NodeCalls(rpc)
                                .removeNode(c.endpoints().get(1), old)
                                .get(30, TimeUnit.SECONDS)
                                .getLayoutJson()),
                    l -> l.draining().contains(old));
        assertThat(asked.allServers()).as("it serves on at first").contains(old);
        drained =
            Awaitility.await(old + " drained onto the other nodes")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> c.agreed().value(), l -> l.removed().contains(old) && fullStrength(l));
        w.awaitAcked(w.count() + 40);
        Versioned<Layout> agreed = c.agreed();
        Awaitility.await("the watch saw version " + agreed.version())
            .atMost(Duration.ofSeconds(30))
            .until(() -> history.get(history.size() - 1).version() >= agreed.version());
      }
      assertThat(drained.retired()).as("it left on request").contains(old);
      assertThat(drained.draining()).isEmpty();
      assertThat(drained.allServers()).hasSize(3).doesNotContain(old);
      if (wasSequencer) {
        assertThat(drained.sequencer()).isNotEqualTo(old);
      }
      assertThat(history)
          .as("some node took places of %s as a rebuilding replica of those chains only", old)
          .anySatisfy(v -> assertThat(v.value().replacing().values()).contains(old))
          .allSatisfy(v -> assertThat(v.value().rebuildingChains().keySet()).doesNotContain(old));
      LayoutHistory.assertEveryChainServedByAtLeast(history, r);
      AckedWrites.assertEveryAckedReadable(c, acked);
      ReplicaAgreement.assertReplicasAgree(
          c.client(drained.sequencer()), c.agreed().value(), streams());
    }
  }

  /** No replica rebuilds and every chain of every segment has R replicas. */
  private static boolean fullStrength(Layout l) {
    return l.rebuilding().isEmpty()
        && LayoutChanges.underReplicated(l).isEmpty()
        && l.segments().stream()
            .allMatch(
                s ->
                    s.log().stream().allMatch(ch -> ch.size() == l.replication())
                        && s.stream().stream().allMatch(ch -> ch.size() == l.replication()));
  }

  private static List<StreamId> streams() {
    return AckedWrites.streams("member-", STREAMS);
  }
}
