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
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that answers probes but cannot adopt the agreed layout (cut off from ZooKeeper, not from
 * its peers) serves nothing of the layouts after the one it holds, so once a layout change seals it
 * at a newer epoch, every write through its chains waits for it. The manager counts it as down once
 * it has lagged behind the agreed layout for its failure timeout (at least 1 s), and removes it;
 * writes go on without it, and every acknowledged write reads back.
 */
class LaggingNodeTest {
  private static final StreamId S = StreamId.of("lag");

  @TempDir Path tmp;

  @Test
  void aNodeThatAnswersButCannotAdoptTheAgreedLayoutIsRemovedAndWritesGoOn() throws Exception {
    try (ZkCluster c = ZkCluster.startLinked(tmp, 3, 3, cfg -> cfg)) {
      Layout first = c.awaitStarted();
      c.awaitAdopted(first.epoch());
      Endpoint sequencer = first.sequencer();
      Endpoint manager =
          Awaitility.await("a manager")
              .atMost(Duration.ofSeconds(20))
              .until(c::manager, java.util.Optional::isPresent)
              .orElseThrow();
      // The lagging node is neither the manager nor the sequencer; the killed one is the other.
      Endpoint lagging =
          c.endpoints().stream()
              .filter(e -> !e.equals(sequencer) && !e.equals(manager))
              .findFirst()
              .orElseThrow();
      Endpoint killed =
          c.endpoints().stream()
              .filter(e -> !e.equals(lagging) && !e.equals(sequencer))
              .findFirst()
              .orElse(manager);
      ClusterStreamLog log =
          c.client(
              sequencer,
              StreamLogOptions.defaults()
                  .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)))
                  .withFailoverTimeout(Duration.ofSeconds(30)));
      List<String> values = new ArrayList<>();
      List<AppendResult> acked = new ArrayList<>();
      append(log, "before", values, acked);

      c.faults().cutFromZooKeeper(lagging);
      // Its peers renew its layout lease while no layout changes: it still serves.
      append(log, "cut-off", values, acked);

      c.kill(killed);
      Layout without =
          c.awaitLayout(
              "a layout without " + killed + " and " + lagging,
              l -> l.removed().contains(killed) && l.removed().contains(lagging));
      assertThat(without.allServers()).containsExactly(sequencer);
      append(log, "after", values, acked);

      List<StreamEntry> read =
          log
              .readStream(S, 0, acked.get(acked.size() - 1).streamAddresses().get(S))
              .get(30, TimeUnit.SECONDS)
              .stream()
              .filter(e -> !e.isHole())
              .toList();
      assertThat(read.stream().map(e -> new String(e.payload(), StandardCharsets.UTF_8)))
          .containsExactlyElementsOf(values);
      c.faults().reconnectToZooKeeper(lagging);
    }
  }

  private static void append(
      ClusterStreamLog log, String value, List<String> values, List<AppendResult> acked)
      throws Exception {
    acked.add(
        log.append(List.of(S), value.getBytes(StandardCharsets.UTF_8)).get(60, TimeUnit.SECONDS));
    values.add(value);
  }
}
