package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code cluster status} run by a node for a caller asks only that node for the layout; the nodes
 * whose probe answers a newer epoch are the ones it asks again ({@link
 * ClusterStatusCommand#newerThan}): not those at the same or an older epoch, nor those that did not
 * answer or were not probed (removed).
 */
class ClusterStatusNewerEpochTest {
  @Test
  void onlyNodesAnsweringANewerEpochAreAskedAgain() {
    Endpoint self = new Endpoint("127.0.0.1", 1);
    Layout layout = Layout.singleNode(self, "c").withEpoch(5);
    Map<Endpoint, NodeState> states = new LinkedHashMap<>();
    states.put(self, state(5));
    states.put(new Endpoint("127.0.0.1", 2), state(4));
    states.put(new Endpoint("127.0.0.1", 3), state(7));
    states.put(new Endpoint("127.0.0.1", 4), new NodeState("unresponsive", "", null));
    states.put(new Endpoint("127.0.0.1", 5), state(6));
    assertThat(ClusterStatusCommand.newerThan(layout, states))
        .containsExactly(new Endpoint("127.0.0.1", 3), new Endpoint("127.0.0.1", 5));
    states.remove(new Endpoint("127.0.0.1", 3));
    states.remove(new Endpoint("127.0.0.1", 5));
    assertThat(ClusterStatusCommand.newerThan(layout, states)).isEmpty();
  }

  private static NodeState state(long epoch) {
    return new NodeState(
        "serving", "", PingResponse.newBuilder().setServing(true).setEpoch(epoch).build());
  }
}
