package io.vcorfu.server.cluster;

import static io.vcorfu.server.cluster.FailoverTest.appendUntil;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamPinMsg;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.server.cluster.FailoverTest.Acked;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins across a cluster (real nodes, real ZooKeeper): a pin is on every replica of the stream's
 * chain; a replica wiped and rebuilt from its chain takes the pin with the trim mark, so a trim
 * after the rebuild stops at the pin on every replica, the rebuilt one included, and every entry
 * from the pin on reads back from it; once released, the trim goes on.
 */
class PinnedRebuildTest {
  private static final StreamId STREAM = StreamId.of("failover");
  private static final StreamId HOLD = StreamId.of("an audit hold");

  @TempDir Path tmp;

  @Test
  void aReplicaRebuiltFromItsChainKeepsTheChainsPins() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 40);
      Layout before = c.agreed().value();
      List<Endpoint> chain = before.streamChain(STREAM);
      Endpoint victim = chain.get(0);
      ClusterStreamLog log = c.client(chain.get(chain.size() - 1));
      assertThat(log.trimStream(STREAM, 10).get(30, TimeUnit.SECONDS)).isEqualTo(10);
      assertThat(log.pinStream(STREAM, HOLD).get(30, TimeUnit.SECONDS))
          .as("pinned where the stream is trimmed")
          .isEqualTo(10);
      for (Endpoint replica : chain) {
        assertThat(held(log, replica).getPinsList())
            .as("the pin on %s", replica)
            .extracting(p -> StreamId.fromMsg(p.getPin()), StreamPinMsg::getAt)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(HOLD, 10L));
      }

      c.restartWiped(victim);
      HealTest.awaitFullStrength(c, victim, acked);
      ClusterStreamLog after = c.client(victim);
      StreamTailEntry rebuilt = held(after, victim);
      assertThat(rebuilt.getTrimMark()).isEqualTo(10);
      assertThat(rebuilt.getPinsList()).extracting(StreamPinMsg::getAt).containsExactly(10L);

      long top = acked.get(acked.size() - 1).streamAddress();
      assertThat(after.trimStream(STREAM, top).get(30, TimeUnit.SECONDS))
          .as("a trim after the rebuild stops at the pin")
          .isEqualTo(10);
      for (Endpoint replica : after.layout().current().streamChain(STREAM)) {
        assertThat(held(after, replica).getTrimMark()).as("mark on %s", replica).isEqualTo(10);
      }
      List<ReadResult> kept =
          after.ops().streamRead(victim, STREAM, 10, top).get(30, TimeUnit.SECONDS);
      assertThat(kept)
          .as("the rebuilt replica's copies from the pin on")
          .allMatch(r -> r.getStatus() == ReadResult.Status.COMMITTED);

      after.unpinStream(STREAM, HOLD).get(30, TimeUnit.SECONDS);
      assertThat(after.trimStream(STREAM, top).get(30, TimeUnit.SECONDS)).isEqualTo(top);
    }
  }

  /**
   * A chain member falls silent (every message to and from it dropped, as a paused node looks)
   * while a pin is asked for: the pin waits for the layout that removes it and lands on every
   * member of the chain then; the silent node, heard again and rebuilt, takes it.
   */
  @Test
  void aPinAskedWhileAMemberIsSilentLandsOnTheChainWithoutItAndItsRebuildTakesIt()
      throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      c.awaitAdopted(2);
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 30);
      Endpoint manager = FailoverTest.awaitManager(c);
      List<Endpoint> chain = c.agreed().value().streamChain(STREAM);
      Endpoint silent = chain.stream().filter(e -> !e.equals(manager)).findFirst().orElseThrow();
      ClusterStreamLog log = c.client(manager);
      assertThat(log.trimStream(STREAM, 10).get(30, TimeUnit.SECONDS)).isEqualTo(10);

      c.faults().partition(silent);
      assertThat(log.pinStream(STREAM, HOLD).get(60, TimeUnit.SECONDS)).isEqualTo(10);
      Layout without = c.agreed().value();
      assertThat(without.allServers())
          .as("removed before the pin completed")
          .doesNotContain(silent);
      for (Endpoint replica : without.streamChain(STREAM)) {
        assertThat(held(log, replica).getPinsList())
            .as("the pin on %s", replica)
            .extracting(StreamPinMsg::getAt)
            .containsExactly(10L);
      }

      c.faults().heal(silent);
      HealTest.awaitFullStrength(c, silent, acked);
      assertThat(held(log, silent).getPinsList())
          .as("the healed node's rebuild took the pin")
          .extracting(StreamPinMsg::getAt)
          .containsExactly(10L);
      long top = acked.get(acked.size() - 1).streamAddress();
      assertThat(log.trimStream(STREAM, top).get(30, TimeUnit.SECONDS)).isEqualTo(10);
    }
  }

  private static StreamTailEntry held(ClusterStreamLog log, Endpoint replica) throws Exception {
    return log.ops()
        .streamTail(replica, List.of(STREAM), false)
        .get(30, TimeUnit.SECONDS)
        .getTails(0);
  }
}
