package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node that stops answering (paused, or cut off from its peers) costs a client about the
 * cluster's failover, not the client's request timeout: with a request timeout of 60 s, an append
 * sent to the silent node once the cluster has replaced it completes long before 60 s, because the
 * client learns the new layout from the other nodes and abandons the request (see {@code
 * LayoutWatch}). Every acknowledged append reads back at its address.
 */
class PausedNodeTest {
  private static final StreamId STREAM = StreamId.of("paused");

  /** Far above how long the cluster takes to replace a node, so waiting it out fails the test. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path tmp;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sequencer", "replica"})
  void aClientAbandonsRequestsToANodeTheLayoutLeft(String role) throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      Layout first = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Endpoint silent =
          role.equals("sequencer")
              ? first.sequencer()
              : c.endpoints().stream().filter(e -> !e.equals(first.sequencer())).findFirst().get();
      Endpoint seed = c.endpoints().stream().filter(e -> !e.equals(silent)).findFirst().get();
      StreamLogOptions options =
          StreamLogOptions.defaults()
              .withRpc(ClientOptions.defaults().withRequestTimeout(REQUEST_TIMEOUT))
              .withFailoverTimeout(Duration.ofSeconds(90));
      ClusterStreamLog log = c.client(seed, options);
      List<AppendResult> acked = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        values.add("before-" + i);
        acked.add(log.append(List.of(STREAM), bytes(values.get(i))).get(30, TimeUnit.SECONDS));
      }
      c.faults().partition(silent);
      // Sent while the node is silent and still in the layout: this append waits on it until the
      // cluster has replaced it, then goes to the new layout's nodes.
      for (int i = 0; i < 5; i++) {
        String v = "during-" + i;
        values.add(v);
        acked.add(log.append(List.of(STREAM), bytes(v)).get(30, TimeUnit.SECONDS));
      }
      assertThat(c.agreed().value().allServers()).doesNotContain(silent);
      long streamTail = acked.get(acked.size() - 1).streamAddresses().get(STREAM);
      // Attempts aborted by the change leave holes in the stream; the data reads back in order.
      List<StreamEntry> read =
          log.readStream(STREAM, 0, streamTail).get(30, TimeUnit.SECONDS).stream()
              .filter(e -> !e.isHole())
              .toList();
      assertThat(read).hasSize(acked.size());
      for (int i = 0; i < acked.size(); i++) {
        assertThat(new String(read.get(i).payload(), StandardCharsets.UTF_8))
            .isEqualTo(values.get(i));
        assertThat(read.get(i).globalAddress()).isEqualTo(acked.get(i).globalAddress());
      }
      c.faults().heal(silent);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
