package io.vcorfu.server.cluster;

import static io.vcorfu.server.cluster.FailoverTest.appendUntil;
import static io.vcorfu.server.cluster.FailoverTest.assertEveryAckedReadable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.proto.PingResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Planned removal of a live node ({@code RemoveNodeRequest}, {@code vcorfu cluster remove-node}):
 * the node is sealed with the others, so every write it admitted finishes first; the layout drops
 * it (moving the sequencer when it was the sequencer); the node keeps running and serves nothing;
 * every acknowledged write stays readable and appends go on. Removals that would lose data, or of
 * nodes the layout does not have, are refused and change nothing.
 */
class RemoveNodeTest {
  @TempDir Path tmp;

  @Test
  void removingTheSequencerAndThenAReplicaWhileAppendingLosesNothing() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitStarted();
      NodeCalls calls = new NodeCalls(rpc);
      List<FailoverTest.Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 20);

      Endpoint sequencer = c.agreed().value().sequencer();
      Endpoint via = c.endpoints().stream().filter(e -> !e.equals(sequencer)).findFirst().get();
      Layout after =
          Layout.fromJson(
              calls.removeNode(via, sequencer).get(30, TimeUnit.SECONDS).getLayoutJson());
      assertThat(after.removed()).containsExactly(sequencer);
      assertThat(after.sequencer()).isNotEqualTo(sequencer);
      assertThat(c.agreed().value()).isEqualTo(after);
      appendUntil(c, acked, 40);
      PingResponse leftover = calls.ping(sequencer).get(10, TimeUnit.SECONDS);
      assertThat(leftover.getServing()).isFalse();
      assertThat(leftover.getNotServingReason()).contains("removed");

      Endpoint replica =
          after.allServers().stream().filter(e -> !e.equals(after.sequencer())).findFirst().get();
      // The leaving node itself may run its own removal.
      Layout last =
          Layout.fromJson(
              calls.removeNode(replica, replica).get(30, TimeUnit.SECONDS).getLayoutJson());
      assertThat(last.allServers()).containsExactly(after.sequencer());
      appendUntil(c, acked, 60);
      assertEveryAckedReadable(c, acked);
      assertThat(acked.stream().map(FailoverTest.Acked::globalAddress).distinct().count())
          .isEqualTo(acked.size());
    }
  }

  /**
   * A one-node cluster: no other node can take the node's places (a removal with another node
   * answering drains the node onto it instead, see {@link DrainTest}), so removing it would leave
   * its chains with no replica, and is refused whatever the manager's probes have heard.
   */
  @Test
  void aRemovalThatWouldLoseAChainOrOfANodeNotInTheLayoutIsRefused() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 1, 1);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitStarted();
      NodeCalls calls = new NodeCalls(rpc);
      Layout before = c.agreed().value();
      Endpoint a = c.endpoints().get(0);
      assertThatThrownBy(() -> calls.removeNode(a, a).get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining("cannot be removed")
          .hasMessageContaining("only copy");
      Endpoint stranger = new Endpoint("node-9", 9009);
      assertThatThrownBy(() -> calls.removeNode(a, stranger).get(30, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining(stranger + " is not in the layout");
      assertThat(c.agreed().value()).isEqualTo(before);
    }
  }
}
