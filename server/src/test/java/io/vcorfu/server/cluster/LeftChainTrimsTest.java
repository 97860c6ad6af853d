package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.StreamTailEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that left a stream chain (here: the chains split as a fourth node joined, and the new node
 * took an old member's place) still holds its copies of the chain's streams, which the chain's
 * trims no longer reach; it takes the chain's trim marks itself, so compaction reclaims them, and
 * never a mark above the chain's.
 */
class LeftChainTrimsTest {
  private static final int STREAMS = 12;

  @TempDir Path tmp;

  private static long markOn(NodeCalls calls, Endpoint node, long epoch, StreamId s) {
    for (StreamTailEntry t : calls.streamMarks(node, epoch).join().getTailsList()) {
      if (StreamId.fromMsg(t.getStream()).equals(s)) {
        return t.getTrimMark();
      }
    }
    return -1;
  }

  @Test
  void aNodeTakesTheTrimMarksOfTheChainsItLeft() throws Exception {
    List<StreamId> streams = AckedWrites.streams("left-", STREAMS);
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<AckedWrites.Acked> acked = new ArrayList<>();
      try (AckedWrites.Writer w = new AckedWrites.Writer(c, streams, acked)) {
        w.awaitAcked(120);
      }
      NodeCalls calls = new NodeCalls(rpc);
      Endpoint d = c.startSpare();
      calls.addNode(c.endpoints().get(0), d, true).get(30, TimeUnit.SECONDS);
      Layout grown =
          Awaitility.await(d + " rebuilt and promoted")
              .atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofMillis(50))
              .until(
                  () -> c.agreed().value(), l -> l.allServers().contains(d) && !l.isRebuilding(d));
      // An old member and a stream whose chain no longer names it.
      Endpoint left = null;
      StreamId moved = null;
      for (StreamId s : streams) {
        for (Endpoint e : c.endpoints()) {
          if (!e.equals(d) && !grown.streamChain(s).contains(e) && left == null) {
            left = e;
            moved = s;
          }
        }
      }
      assertThat(moved).as("the grown layout took some old member out of a chain").isNotNull();
      Endpoint leftNode = left;
      StreamId s = moved;
      Awaitility.await(leftNode + " adopted the grown layout")
          .atMost(Duration.ofSeconds(30))
          .until(() -> c.node(leftNode).layout().epoch() >= grown.epoch());

      ClusterStreamLog log = c.client(c.endpoints().get(0));
      // The node's own pass (every 10 s) takes the chain's mark; what is checked first is that the
      // trim itself does not reach it, so an observation a pass may have overlapped is taken again.
      Layout now = null;
      long before = -1;
      long chainMark = -1;
      long leftMark = -1;
      for (int attempt = 0; attempt < 5; attempt++) {
        long passes = c.node(leftNode).leftChains().passesBegun();
        long tail = log.tails(List.of(s)).join().streamTails().get(s);
        before = Math.min(tail, Math.max(before + 1, tail / 2 + 1));
        log.trimStream(s, before).join();
        now = c.agreed().value();
        List<Endpoint> chain = now.streamChain(s);
        chainMark = markOn(calls, chain.get(chain.size() - 1), now.epoch(), s);
        leftMark = markOn(calls, leftNode, now.epoch(), s);
        if (c.node(leftNode).leftChains().passesBegun() == passes) {
          break;
        }
        leftMark = -2; // overlapped by a pass: not an observation
      }
      assertThat(leftMark).as("an observation no pass of the node overlapped").isNotEqualTo(-2);
      assertThat(chainMark).isEqualTo(before);
      assertThat(leftMark)
          .as("the chain's trim does not reach a node that left it")
          .isLessThan(before);

      assertThat(c.node(leftNode).leftChains().runOnce()).isPositive();
      assertThat(markOn(calls, leftNode, now.epoch(), s))
          .as("the chain's mark, taken by the node that left")
          .isEqualTo(chainMark);
      for (StreamId other : streams) {
        if (now.streamChain(other).contains(leftNode)) {
          assertThat(markOn(calls, leftNode, now.epoch(), other))
              .as("a chain it still serves keeps its own mark")
              .isLessThanOrEqualTo(
                  markOn(calls, now.streamChain(other).get(0), now.epoch(), other));
        }
      }
    }
  }
}
