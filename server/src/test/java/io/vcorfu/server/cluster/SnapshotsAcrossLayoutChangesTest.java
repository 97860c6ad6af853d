package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.SnapshotFloor;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sequencer that stays the sequencer across a layout change keeps the snapshots clients
 * registered with it: the registrations stay complete and the oldest one is still named, so trims
 * neither pass it nor stop for a lease after each change.
 */
class SnapshotsAcrossLayoutChangesTest {
  @TempDir Path tmp;

  @Test
  void aStayingSequencerKeepsTheRegisteredSnapshotsAcrossALayoutChange() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      Layout first = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Endpoint sequencer = first.sequencer();
      ClusterStreamLog holder = c.client(sequencer);
      ClusterStreamLog asker = c.client(sequencer);
      // Complete once the sequencer has known its registrations for a whole lease.
      Awaitility.await("registrations complete")
          .atMost(Duration.ofSeconds(30))
          .until(() -> holder.registerSnapshots(5, 10_000).join().complete());

      Endpoint replica =
          c.endpoints().stream()
              .filter(e -> !e.equals(sequencer) && !c.manager().orElseThrow().equals(e))
              .findFirst()
              .orElseThrow();
      c.kill(replica);
      Layout after =
          c.awaitLayout(
              "the replica removed",
              x -> x.epoch() > first.epoch() && !x.allServers().contains(replica));
      assertThat(after.sequencer()).isEqualTo(sequencer);
      Awaitility.await("the sequencer serves the new layout")
          .atMost(Duration.ofSeconds(30))
          .until(() -> c.node(sequencer).layout().epoch() >= after.epoch());

      SnapshotFloor floor = asker.registerSnapshots(-1, 1_000).join();
      assertThat(floor.complete()).as("still complete after the change").isTrue();
      assertThat(floor.oldestRegistered()).as("the snapshot registered before").isEqualTo(5);
    }
  }
}
