package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The only node of a one-node cluster is replaced while an append is parked on its sequencer: a
 * node that restarts as the sequencer commits the next epoch and then reveals nothing for one
 * layout lease, so an append sent right after it adopted that epoch waits there, as one combined
 * request (token and write). The replacement seals the node meanwhile and opens a new segment at
 * the log tail the seal reported. Whatever the parked append then does, the write the client was
 * told of must be where the new node's chains say it is: readable at its global address and its
 * stream address from the new node alone once the old one is gone, and stored once.
 */
class ReplaceParkedWriteTest {
  private static final StreamId STREAM = StreamId.of("parked");

  /** Long enough that the append is surely still parked when the seal arrives. */
  private static final Duration LEASE = Duration.ofSeconds(2);

  @TempDir Path tmp;

  @Test
  void anAppendParkedWhileTheOnlyNodeIsReplacedIsReadableFromTheNewNodeAlone() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 1, 1, cfg -> cfg.withLayoutLease(LEASE));
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitStarted();
      Endpoint old = c.endpoints().get(0);
      NodeCalls calls = new NodeCalls(rpc);
      ClusterStreamLog log =
          c.client(
              old,
              StreamLogOptions.defaults()
                  .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(10))));
      Map<String, AppendResult> acked = new HashMap<>();
      for (int i = 0; i < 5; i++) {
        String value = "before-" + i;
        acked.put(value, append(log, value).get(30, TimeUnit.SECONDS));
      }

      Endpoint fresh = c.startSpare();
      calls.addNode(old, fresh).get(30, TimeUnit.SECONDS);
      c.awaitLayout("a spare", l -> l.spares().contains(fresh));
      // The node restarts: it commits the next epoch before it serves, and its sequencer then
      // reveals nothing for a layout lease, the appends sent meanwhile parked on it.
      long before = c.agreed().value().epoch();
      c.restart(old);
      c.awaitLayout("the restarted sequencer's epoch", l -> l.epoch() > before);
      Awaitility.await("the restarted node at its new epoch")
          .atMost(Duration.ofSeconds(30))
          .until(() -> c.node(old).layout() != null && c.node(old).layout().epoch() > before);
      CompletableFuture<AppendResult> parked = append(log, "parked");
      Awaitility.await("the append parked on the sequencer")
          .during(Duration.ofMillis(200))
          .atMost(Duration.ofSeconds(1))
          .until(() -> !parked.isDone());

      calls.replaceNode(old, old, fresh).get(30, TimeUnit.SECONDS);
      acked.put("parked", parked.get(30, TimeUnit.SECONDS));
      for (int i = 0; i < 5; i++) {
        String value = "after-" + i;
        acked.put(value, append(log, value).get(30, TimeUnit.SECONDS));
      }
      Layout replaced =
          c.awaitLayout(
              "the old node out and the new one a full replica",
              l ->
                  !l.allServers().contains(old)
                      && l.allServers().contains(fresh)
                      && l.rebuilding().isEmpty());
      c.awaitAdopted(replaced.epoch());
      c.kill(old);

      ClusterStreamLog reader = c.client(fresh);
      long lastStream =
          acked.values().stream().mapToLong(r -> r.streamAddresses().get(STREAM)).max().orElse(-1);
      List<StreamEntry> entries =
          reader.readStream(STREAM, 0, lastStream).get(30, TimeUnit.SECONDS);
      List<String> stored = new ArrayList<>();
      for (StreamEntry e : entries) {
        if (!e.isHole()) {
          stored.add(new String(e.payload(), StandardCharsets.UTF_8));
        }
      }
      assertThat(stored)
          .as("every value in the stream, once")
          .containsExactlyInAnyOrderElementsOf(acked.keySet());
      for (Map.Entry<String, AppendResult> a : acked.entrySet()) {
        AppendResult r = a.getValue();
        GlobalEntry g = reader.readGlobal(r.globalAddress()).get(30, TimeUnit.SECONDS);
        assertThat(g.isHole())
            .as("%s, acknowledged at global address %d", a.getKey(), r.globalAddress())
            .isFalse();
        assertThat(new String(g.payload(), StandardCharsets.UTF_8)).isEqualTo(a.getKey());
        StreamEntry s = entries.get((int) (long) r.streamAddresses().get(STREAM));
        assertThat(s.globalAddress())
            .as("%s's stream slot names its global address", a.getKey())
            .isEqualTo(r.globalAddress());
      }
    }
  }

  private static CompletableFuture<AppendResult> append(ClusterStreamLog log, String value) {
    return log.append(List.of(STREAM), value.getBytes(StandardCharsets.UTF_8));
  }
}
