package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replica check of the fault tests fails when two replicas of a chain differ. */
class ReplicaAgreementTest {
  @TempDir Path tmp;

  @Test
  void replicasHoldingDifferentEntriesFailTheCheck() throws Exception {
    StreamId stream = StreamId.of("agreement");
    try (ZkCluster c = ZkCluster.start(tmp, 2, 1)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      ClusterStreamLog log = c.client(c.endpoints().get(0));
      for (int i = 0; i < 6; i++) {
        log.append(List.of(stream), ("v" + i).getBytes(StandardCharsets.UTF_8))
            .get(10, TimeUnit.SECONDS);
      }
      // With R = 1 each node holds other addresses; read as if they were one chain they differ.
      List<Endpoint> both = c.endpoints();
      Layout pretended =
          new Layout(
              ZkCluster.NAME,
              c.agreed().value().epoch(),
              both.get(0),
              List.of(new Segment(0, Segment.OPEN, List.of(both), List.of(both))),
              2,
              List.of());
      assertThatThrownBy(
              () -> ReplicaAgreement.assertReplicasAgree(log, pretended, List.of(stream)))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("log chain 0");
    }
  }
}
