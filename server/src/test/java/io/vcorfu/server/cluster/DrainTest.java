package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Drains in process (real nodes, real ZooKeeper), while a client appends to many streams: a node
 * replaced ({@code replace-node}) or removed while a spare is at hand ({@code remove-node}) hands
 * its places to the new node before it leaves, so every layout the cluster agrees on keeps R
 * serving replicas in every chain of its current segment; every acknowledged write reads back
 * afterwards and every replica of every chain holds the same entries. A drain whose old node or
 * whose new node dies half way ends as a failure of that node would: the cluster serves on at R.
 */
class DrainTest {
  private static final int STREAMS = 12;

  @TempDir Path tmp;

  private static List<StreamId> streams() {
    return AckedWrites.streams("drain-", STREAMS);
  }

  @ParameterizedTest(name = "R = {0}, {1} node {2}")
  @CsvSource({
    "2, replace, 1",
    "3, replace, 0",
    "3, remove, 2",
  })
  void aDrainedNodeHandsOverItsPlacesBeforeItLeaves(int r, String how, int oldIndex)
      throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, r);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      Layout first = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Endpoint old = c.endpoints().get(oldIndex);
      long oldPlaces = places(first, old);
      List<Versioned<Layout>> history = new CopyOnWriteArrayList<>();
      List<AckedWrites.Acked> acked = new ArrayList<>();
      NodeCalls calls = new NodeCalls(rpc);
      Endpoint via = c.endpoints().get((oldIndex + 1) % 3);
      Layout drained;
      Endpoint d;
      ZkLayoutStore.Watch watch = c.store().watch(history::add);
      try (watch;
          AckedWrites.Writer w = new AckedWrites.Writer(c, streams(), acked)) {
        w.awaitAcked(100);
        d = c.startSpare(200_000);
        Layout joined;
        if (how.equals("replace")) {
          joined =
              Layout.fromJson(
                  calls.replaceNode(via, old, d).get(30, TimeUnit.SECONDS).getLayoutJson());
        } else {
          calls.addNode(via, d).get(30, TimeUnit.SECONDS);
          joined =
              Awaitility.await("the manager hears the spare " + d)
                  .atMost(Duration.ofSeconds(30))
                  .ignoreExceptions()
                  .until(
                      () ->
                          Layout.fromJson(
                              calls.removeNode(via, old).get(30, TimeUnit.SECONDS).getLayoutJson()),
                      l -> old.equals(l.replacing().get(d)));
        }
        assertThat(joined.replacing()).containsEntry(d, old);
        assertThat(joined.isRebuilding(d)).isTrue();
        assertThat(places(joined, d)).isEqualTo(oldPlaces);

        drained =
            Awaitility.await(old + " drained onto " + d)
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(50))
                .until(
                    () -> c.agreed().value(),
                    l -> !l.allServers().contains(old) && !l.isRebuilding(d));
        int before = w.count();
        w.awaitAcked(before + 60);
        Versioned<Layout> agreed = c.agreed();
        Awaitility.await("the watch saw version " + agreed.version())
            .atMost(Duration.ofSeconds(30))
            .until(() -> history.get(history.size() - 1).version() >= agreed.version());
      }
      assertThat(history)
          .as("the watch saw the drain under way")
          .anySatisfy(v -> assertThat(v.value().replacing()).containsEntry(d, old));
      LayoutHistory.assertEveryChainServedByAtLeast(history, r);
      assertThat(drained.removed()).contains(old);
      assertThat(drained.retired()).as("it left on request").contains(old);
      assertThat(drained.replacing()).isEmpty();
      assertThat(LayoutChanges.underReplicated(drained)).isEmpty();
      if (oldIndex == 0) {
        assertThat(drained.sequencer()).as("the sequencer moved to the new node").isEqualTo(d);
      }
      AckedWrites.assertEveryAckedReadable(c, acked);
      ReplicaAgreement.assertReplicasAgree(
          c.client(c.endpoints().get((oldIndex + 1) % 3)), drained, streams());
    }
  }

  @ParameterizedTest(name = "the {0} node dies mid-drain")
  @CsvSource({"old", "new"})
  void aDrainWhoseNodeDiesEndsAsThatNodesFailure(String dies) throws Exception {
    int r = 3;
    try (ZkCluster c = ZkCluster.start(tmp, 3, r);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Endpoint old = c.endpoints().get(1);
      List<AckedWrites.Acked> acked = new ArrayList<>();
      NodeCalls calls = new NodeCalls(rpc);
      try (AckedWrites.Writer w = new AckedWrites.Writer(c, streams(), acked)) {
        w.awaitAcked(200);
        Endpoint d = c.startSpare(2_000);
        calls.replaceNode(c.endpoints().get(0), old, d).get(30, TimeUnit.SECONDS);
        RebuildWait.awaitCopying(calls, d);
        Endpoint victim = dies.equals("old") ? old : d;
        Endpoint survivor = dies.equals("old") ? d : old;
        c.kill(victim);
        Layout after =
            c.awaitLayout(
                "without " + victim, l -> l.removed().contains(victim) && l.replacing().isEmpty());
        assertThat(after.retired()).as("it failed; it did not leave on request").isEmpty();
        assertThat(after.allServers()).contains(survivor);
        for (List<Endpoint> chain : currentChains(after)) {
          assertThat(chain).as("chain %s at epoch %d", chain, after.epoch()).hasSize(r);
        }
        if (dies.equals("old")) {
          // The new node restores the chains the old one left, as any rebuilding replica does;
          // copying at 2 kB/s it stays rebuilding, and every chain keeps R - 1 serving meanwhile.
          assertThat(after.isRebuilding(d)).isTrue();
        } else {
          assertThat(after.rebuilding()).isEmpty();
        }
        int before = w.count();
        w.awaitAcked(before + 40);
      }
      AckedWrites.assertEveryAckedReadable(c, acked);
      ReplicaAgreement.assertReplicasAgree(
          c.client(c.endpoints().get(0)), c.agreed().value(), streams());
    }
  }

  /** How many chains of the current segment hold {@code node}. */
  private static long places(Layout l, Endpoint node) {
    return currentChains(l).stream().filter(ch -> ch.contains(node)).count();
  }

  private static List<List<Endpoint>> currentChains(Layout l) {
    List<List<Endpoint>> out = new ArrayList<>(l.currentSegment().log());
    out.addAll(l.currentSegment().stream());
    return out;
  }
}
