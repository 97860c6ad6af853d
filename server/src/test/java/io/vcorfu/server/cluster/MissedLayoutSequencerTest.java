package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.Versioned;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that was the sequencer, missed a layout that named another node the sequencer (it was cut
 * off from ZooKeeper while that layout was agreed and served), and is then named the sequencer
 * again by a later layout, must not carry on from the tails it knew: the other sequencer issued
 * addresses since. It rebuilds its tails from the replicas, as any node taking the role over does;
 * only a role whose layout is followed directly by the next one is kept as it is.
 */
class MissedLayoutSequencerTest {
  private static final StreamId S = StreamId.of("s");

  @TempDir Path tmp;

  @Test
  void aSequencerNamedAgainAfterALayoutItMissedAnswersTailsThatCoverTheOtherSequencersWrites()
      throws Exception {
    // The first node is the sequencer and in no chain (the chains are the other two, R = 2), so
    // that layouts which remove it and name it again leave every chain whole: no manager has a
    // chain to restore with it. Nobody is removed for a lost ZooKeeper session during the test.
    try (ZkCluster c =
        ZkCluster.startLinked(
            tmp,
            3,
            cfg -> cfg.withSessionTimeout(Duration.ofSeconds(60)),
            nodes -> sequencerOutsideTheChains(nodes))) {
      Layout first = c.awaitStarted();
      c.awaitAdopted(first.epoch());
      Endpoint a = first.sequencer();
      Endpoint b = c.endpoints().get(1);
      String incarnation =
          c.awaitLayout("the incarnations recorded", l -> l.incarnations().size() == 3)
              .incarnations()
              .get(a);
      Set<String> written = new HashSet<>();
      ClusterStreamLog viaB = c.client(b);
      append(viaB, "a-", 5, written);
      long tailUnderA = viaB.tails(List.of(S)).get(10, TimeUnit.SECONDS).streamTails().get(S);

      // Cut off from ZooKeeper, it misses the next layout, which names another sequencer.
      c.faults().cutFromZooKeeper(a);
      Layout second =
          commit(
              c,
              current -> {
                ObjectNode doc = json(current);
                doc.put("sequencer", b.toString());
                doc.withArray("removed").add(a.toString());
                ((ObjectNode) doc.get("incarnations")).remove(a.toString());
                return doc;
              });
      Awaitility.await(b + " adopts epoch " + second.epoch())
          .atMost(Duration.ofSeconds(20))
          .until(() -> c.node(b).layout().epoch() >= second.epoch());
      append(viaB, "b-", 5, written);
      long tailUnderB = viaB.tails(List.of(S)).get(10, TimeUnit.SECONDS).streamTails().get(S);
      assertThat(tailUnderB).isEqualTo(tailUnderA + 5);
      assertThat(c.node(a).layout().epoch())
          .as("%s, cut off from ZooKeeper, has not adopted epoch %d", a, second.epoch())
          .isLessThan(second.epoch());

      // Named the sequencer again, as a manager might once the other sequencer failed; back in
      // touch with ZooKeeper, it is delivered this layout without the one before.
      Layout third =
          commit(
              c,
              current -> {
                ObjectNode doc = json(current);
                doc.put("sequencer", a.toString());
                doc.putArray("removed");
                ((ObjectNode) doc.get("incarnations")).put(a.toString(), incarnation);
                return doc;
              });
      c.faults().reconnectToZooKeeper(a);
      Awaitility.await(a + " adopts epoch " + third.epoch())
          .atMost(Duration.ofSeconds(20))
          .until(() -> c.node(a).layout().epoch() >= third.epoch());

      ClusterStreamLog viaA = c.client(a);
      long tailAgain = viaA.tails(List.of(S)).get(20, TimeUnit.SECONDS).streamTails().get(S);
      assertThat(tailAgain)
          .as(
              "the stream tail %s answers as the sequencer again (%s issued up to %d)",
              a, b, tailUnderB)
          .isEqualTo(tailUnderB);
      append(viaA, "a-again-", 3, written);
      List<StreamEntry> entries = viaA.readStream(S, 0, tailUnderB + 3).get(20, TimeUnit.SECONDS);
      List<String> read = new ArrayList<>();
      for (StreamEntry e : entries) {
        read.add(new String(e.payload(), StandardCharsets.UTF_8));
      }
      assertThat(read).as("every write of the stream, once each").hasSize(13);
      assertThat(new HashSet<>(read)).isEqualTo(written);
    }
  }

  /** The first of {@code nodes} the sequencer, the others the replicas of every chain. */
  private static Layout sequencerOutsideTheChains(List<Endpoint> nodes) {
    try {
      ObjectNode doc =
          json(LayoutChanges.initial(ZkCluster.NAME, nodes.subList(1, nodes.size()), 2));
      doc.put("sequencer", nodes.get(0).toString());
      return Layout.fromJson(JSON.writeValueAsString(doc));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void append(ClusterStreamLog log, String prefix, int n, Set<String> written)
      throws Exception {
    for (int i = 0; i < n; i++) {
      String p = prefix + i;
      AppendResult r =
          log.append(List.of(S), p.getBytes(StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
      assertThat(r).isNotNull();
      written.add(p);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode json(Layout layout) throws Exception {
    return (ObjectNode) JSON.readTree(layout.toJson());
  }

  private interface Change {
    ObjectNode apply(Layout current) throws Exception;
  }

  /**
   * Commits {@code change} of the agreed layout at the next epoch, as a manager does: every node of
   * the agreed layout is sealed at that epoch first.
   */
  private static Layout commit(ZkCluster c, Change change) throws Exception {
    Versioned<Layout> current = c.agreed();
    long epoch = current.value().epoch() + 1;
    sealAll(c, current.value(), epoch);
    ObjectNode doc = change.apply(current.value());
    doc.put("epoch", epoch);
    Layout next = Layout.fromJson(JSON.writeValueAsString(doc));
    c.store().compareAndSet(current.version(), next).join();
    return next;
  }

  /** Seals every node of {@code layout} at {@code epoch}. */
  private static void sealAll(ZkCluster c, Layout layout, long epoch) throws Exception {
    try (RpcClient rpc =
        c.transport()
            .newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(5)))) {
      NodeCalls calls = new NodeCalls(rpc);
      for (Endpoint node : layout.allServers()) {
        calls.seal(node, epoch).get(5, TimeUnit.SECONDS);
      }
    }
  }
}
