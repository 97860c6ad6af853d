package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.server.cluster.FailoverTest.Acked;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A layout a node fails to adopt is adopted later, once the failure is gone: the node retries it
 * (with back-off) until it succeeds or a newer layout arrives, and never serves it half-adopted.
 * Three nodes with replication 2 lose their sequencer; the node that takes over first cannot adopt
 * the new layout (it cannot record it in its data directory, or ZooKeeper stops while it takes
 * over); once the cause is gone, the cluster serves again within seconds, with no other layout
 * change to prompt it.
 */
class AdoptionRetryTest {
  private static final StreamId STREAM = StreamId.of("failover");

  /** How soon after the failure is gone appends must succeed again. */
  private static final Duration SERVES_AGAIN_WITHIN = Duration.ofSeconds(15);

  @TempDir Path tmp;

  @Test
  void aNewSequencerThatCannotRecordItsLayoutServesOnceItCan() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 2)) {
      Layout started = c.awaitStarted();
      c.awaitAdopted(started.epoch());
      List<Acked> acked = new ArrayList<>();
      FailoverTest.appendUntil(c, acked, 10);
      Endpoint old = started.sequencer();
      Endpoint next = LayoutChanges.withoutNode(started, old, 0).sequencer();
      Endpoint bystander = otherThan(c, old, next);
      // The layout store writes a temporary file and renames it: a directory in its place makes
      // every write of the node's layout fail.
      Path blocker = Files.createDirectory(c.dataDir(next).resolve("layout.json.tmp"));

      c.kill(old);
      Layout after = c.awaitLayout("a layout without " + old, x -> x.removed().contains(old));
      assertThat(after.sequencer()).isEqualTo(next);
      Awaitility.await(bystander + " adopts epoch " + after.epoch())
          .atMost(Duration.ofSeconds(30))
          .until(() -> c.node(bystander).layout().epoch() >= after.epoch());
      Awaitility.await(next + " stops serving, its layout not adopted")
          .atMost(Duration.ofSeconds(30))
          .until(() -> !c.node(next).status().getServing());
      assertThat(c.node(next).layout().epoch()).isLessThan(after.epoch());

      Files.delete(blocker);
      long healed = System.nanoTime();
      appendWithin(c, next, acked, acked.size() + 10, SERVES_AGAIN_WITHIN);
      System.out.printf(
          "  serving again %d ms after the layout could be recorded%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed));
      assertThat(c.node(next).layout().epoch()).isEqualTo(after.epoch());
      FailoverTest.assertEveryAckedReadable(c, acked);
    }
  }

  /**
   * ZooKeeper stops at the moment the new sequencer, which has the layout that makes it the
   * sequencer, asks ZooKeeper whether read leases were granted (that request is lost), and stays
   * down for longer than the nodes' ZooKeeper session. Once it is back, the cluster serves again.
   */
  @Test
  void aTakeoverDuringWhichZooKeeperStopsServesSoonAfterZooKeeperReturns() throws Exception {
    Duration session = Duration.ofSeconds(2);
    try (ZkCluster c = ZkCluster.startLinked(tmp, 3, 2, cfg -> cfg.withSessionTimeout(session))) {
      Layout started = c.awaitStarted();
      c.awaitAdopted(started.epoch());
      List<Acked> acked = new ArrayList<>();
      FailoverTest.appendUntil(c, acked, 10);
      Endpoint old = started.sequencer();
      Endpoint next = LayoutChanges.withoutNode(started, old, 0).sequencer();
      AtomicBoolean stopped = new AtomicBoolean();
      c.faults()
          .onSync(
              next,
              "/read-leases",
              true,
              () -> {
                try {
                  c.stopZooKeeper();
                  stopped.set(true);
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });

      c.kill(old);
      Awaitility.await("ZooKeeper stopped as " + next + " takes over")
          .atMost(Duration.ofSeconds(30))
          .untilTrue(stopped);
      assertThat(c.node(next).layout().sequencer()).isEqualTo(next);
      Awaitility.await(next + " stops serving")
          .atMost(Duration.ofSeconds(10))
          .until(() -> !c.node(next).status().getServing());
      // Down for well over the session timeout: every ZooKeeper call the takeover makes fails.
      Awaitility.await("ZooKeeper down, " + next + " not serving")
          .during(session.multipliedBy(3))
          .atMost(session.multipliedBy(4))
          .until(() -> !c.node(next).status().getServing());
      c.restartZooKeeper();
      long back = System.nanoTime();
      appendWithin(c, next, acked, acked.size() + 10, SERVES_AGAIN_WITHIN);
      System.out.printf(
          "  serving again %d ms after ZooKeeper returned%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back));
      FailoverTest.assertEveryAckedReadable(c, acked);
    }
  }

  private static Endpoint otherThan(ZkCluster c, Endpoint a, Endpoint b) {
    return c.endpoints().stream()
        .filter(e -> !e.equals(a) && !e.equals(b))
        .findFirst()
        .orElseThrow();
  }

  /**
   * Appends through {@code via} until {@code acked} holds {@code total} values, failing the test if
   * that takes longer than {@code within}; a client whose append failed is replaced.
   */
  private static void appendWithin(
      ZkCluster c, Endpoint via, List<Acked> acked, int total, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    ClusterStreamLog log = null;
    int attempt = 0;
    while (acked.size() < total) {
      assertThat(System.nanoTime() - deadline)
          .as("appends still failing %d ms after the cause was gone", within.toMillis())
          .isNegative();
      String value = "after-" + acked.size() + "-" + attempt++;
      try {
        if (log == null) {
          log = c.client(via);
        }
        AppendResult r =
            log.append(List.of(STREAM), value.getBytes(StandardCharsets.UTF_8))
                .get(5, TimeUnit.SECONDS);
        acked.add(new Acked(value, r.globalAddress(), r.streamAddresses().get(STREAM)));
      } catch (Exception e) {
        log = null;
      }
    }
  }
}
