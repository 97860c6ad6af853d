package io.vcorfu.server.cluster;

import static io.vcorfu.server.cluster.FailoverTest.appendUntil;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ChainChecks;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ChainHead;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainReportMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.server.SegmentDamage;
import io.vcorfu.server.cluster.FailoverTest.Acked;
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
 * Tamper evidence across a cluster (real nodes, real ZooKeeper): a byte of one entry is flipped in
 * the segment files of the replica a rebuild reads first; verify names that replica and address,
 * the wiped replica rebuilt from the chain takes an intact copy from another replica instead, and
 * afterwards every replica's chain head agrees with the head pinned before the damage.
 */
class TamperedSourceRebuildTest {
  private static final StreamId STREAM = StreamId.of("failover");

  @TempDir Path tmp;

  @Test
  void aRebuildDoesNotCopyAnEntryWhoseSourceCopyWasAltered() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 40);
      Layout before = c.agreed().value();
      List<Endpoint> chain = before.streamChain(STREAM);
      Endpoint source = chain.get(chain.size() - 1); // a rebuild reads the chain's last first
      Endpoint victim = chain.get(0);
      ClusterStreamLog log = c.client(source);
      // The last append's commit reaches the replicas a few milliseconds after its acknowledgement:
      // the head is pinned once every replica has decided it.
      long last = acked.get(acked.size() - 1).streamAddress();
      ChainHead pinned =
          Awaitility.await("every replica decides the last acknowledged append")
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(20))
              .ignoreExceptionsMatching(e -> e.getCause() instanceof IllegalStateException)
              .until(() -> ChainChecks.head(log, STREAM, last).join(), h -> true);

      Acked altered = acked.get(17);
      assertThat(
              SegmentDamage.flipEnd(
                  c.dataDir(source), altered.value().getBytes(StandardCharsets.UTF_8)))
          .as("copies of the entry's value in the segment files")
          .isPositive();
      ChainReportMsg onSource = reportOf(log, source, pinned);
      assertThat(onSource.getDamagedList())
          .extracting(d -> d.getAddress())
          .containsExactly(altered.streamAddress());
      assertThat(reportOf(log, chain.get(1), pinned).getDamagedList()).isEmpty();

      c.restartWiped(victim);
      HealTest.awaitFullStrength(c, victim, acked);

      List<ReadResult> copy =
          log.ops()
              .streamRead(victim, STREAM, altered.streamAddress(), altered.streamAddress())
              .get(30, TimeUnit.SECONDS);
      assertThat(copy.get(0).getEntry().getPayload().toStringUtf8())
          .as("the rebuilt replica's copy of the altered entry")
          .isEqualTo(altered.value());
      ChainReportMsg onVictim = reportOf(log, victim, pinned);
      assertThat(onVictim.getDamagedList()).isEmpty();
      assertThat(onVictim.getPin()).isEqualTo("MATCH");
      assertThat(reportOf(log, source, pinned).getDamagedCount()).isEqualTo(1);
      assertThat(ChainChecks.head(log, STREAM, pinned.position()).get(30, TimeUnit.SECONDS))
          .isEqualTo(pinned);
      // Readers never get the altered bytes: the damaged replica refuses to serve them (it is the
      // one reads go to first), and the read is answered by another replica.
      List<StreamEntry> read =
          log.readStream(STREAM, 0, acked.get(acked.size() - 1).streamAddress())
              .get(30, TimeUnit.SECONDS);
      for (Acked a : acked) {
        StreamEntry e = read.get((int) a.streamAddress());
        assertThat(new String(e.payload(), StandardCharsets.UTF_8))
            .as("%s", a)
            .isEqualTo(a.value());
      }
      assertThat(log.readGlobal(altered.globalAddress()).get(30, TimeUnit.SECONDS).payload())
          .isEqualTo(altered.value().getBytes(StandardCharsets.UTF_8));
    }
  }

  private static ChainReportMsg reportOf(ClusterStreamLog log, Endpoint node, ChainHead pin)
      throws Exception {
    for (ChainChecks.NodeReport r :
        ChainChecks.verify(log, STREAM, pin).get(30, TimeUnit.SECONDS)) {
      if (r.node().equals(node)) {
        assertThat(r.failure()).isNull();
        return r.reports().get(0);
      }
    }
    throw new AssertionError(node + " is not a serving replica of " + STREAM);
  }
}
