package io.vcorfu.server.cluster;

import static io.vcorfu.server.cluster.FailoverTest.appendUntil;
import static io.vcorfu.server.cluster.FailoverTest.assertEveryAckedReadable;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.RebuildProgress;
import io.vcorfu.server.cluster.FailoverTest.Acked;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that starts again after the manager removed it copies, before it serves, the streams of
 * the chains it will rejoin (real nodes, real ZooKeeper): the rebuild after its join finds those
 * slots held; a copy cut short by its time limit leaves the rest to that rebuild; either way every
 * acknowledged entry is read back and every replica of the stream holds the same slots.
 */
class PreJoinCopyTest {
  private static final StreamId STREAM = StreamId.of("failover");

  @TempDir Path tmp;

  /**
   * Writes 40 entries, kills node {@code index}, waits for its removal, and writes up to {@code
   * total} entries in all without it; returns that node.
   */
  private static Endpoint removedWhileWritten(ZkCluster c, List<Acked> acked, int index, int total)
      throws Exception {
    c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
    appendUntil(c, acked, 40);
    Endpoint victim = c.endpoints().get(index);
    c.kill(victim);
    c.awaitLayout("without " + victim, x -> x.removed().contains(victim));
    appendUntil(c, acked, total);
    return victim;
  }

  /** What {@code victim} copied before it joined, the copy having run to its end. */
  private static PreJoinCopy.Result copiedToItsEnd(ZkCluster c, Endpoint victim) {
    PreJoinCopy.Result r = c.node(victim).preJoinCopy();
    assertThat(r.stoppedBecause()).as("the copy before joining ran to its end").isEmpty();
    return r;
  }

  /** Every acknowledged entry reads back, and every replica of the stream holds the same slots. */
  private static void assertNothingLost(ZkCluster c, Layout healed, List<Acked> acked)
      throws Exception {
    assertEveryAckedReadable(c, acked);
    ReplicaAgreement.assertReplicasAgree(c.client(healed.sequencer()), healed, List.of(STREAM));
  }

  @Test
  void aRemovedNodeCopiesWhatItMissedBeforeItServesAndItsRebuildFindsItHeld() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      List<Acked> acked = new ArrayList<>();
      Endpoint victim = removedWhileWritten(c, acked, 2, 80);

      c.restart(victim);
      Layout healed = HealTest.awaitFullStrength(c, victim, acked);

      PreJoinCopy.Result before = copiedToItsEnd(c, victim);
      assertThat(before.copied())
          .as("the stream's 40 entries written while it was away, copied before it served")
          .isGreaterThanOrEqualTo(40);
      RebuildProgress rebuild = c.node(victim).lastRebuild();
      assertThat(rebuild.getEntriesHeld())
          .as("the rebuild after the join found the slots copied before it")
          .isGreaterThanOrEqualTo(80);
      assertNothingLost(c, healed, acked);
    }
  }

  @Test
  void aCopyCutShortByItsTimeLimitLeavesTheRestToTheRebuild() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      List<Acked> acked = new ArrayList<>();
      Endpoint victim = removedWhileWritten(c, acked, 1, 120);

      // Paced so that its first page (16 slots) takes it past its limit: it stops after that page.
      c.restart(
          victim,
          true,
          cfg -> cfg.withRebuildRate(2_000).withPreJoinCopyLimit(Duration.ofMillis(500)));
      Layout healed = HealTest.awaitFullStrength(c, victim, acked);

      PreJoinCopy.Result before = c.node(victim).preJoinCopy();
      RebuildProgress rebuild = c.node(victim).lastRebuild();
      assertThat(before.stoppedBecause()).contains("time limit");
      assertThat(before.copied()).as("a prefix, not the whole stream").isPositive().isLessThan(120);
      assertThat(before.copied() + rebuild.getEntriesCopied())
          .as("the wiped node's copy of the stream, before and after it joined")
          .isGreaterThanOrEqualTo(120);
      assertNothingLost(c, healed, acked);
    }
  }

  @Test
  void aCopyThatTookOverASecondPassesAgainAndCopiesNoSlotTwice() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      List<Acked> acked = new ArrayList<>();
      Endpoint victim = removedWhileWritten(c, acked, 2, 120);
      long slots =
          c.client(c.endpoints().get(0)).tails(Set.of(STREAM)).join().streamTails().get(STREAM) + 1;

      // Paced so that the first pass over the wiped node's 120 entries takes over a second.
      c.restart(victim, true, cfg -> cfg.withRebuildRate(4_000));
      Layout healed = HealTest.awaitFullStrength(c, victim, acked);

      PreJoinCopy.Result before = copiedToItsEnd(c, victim);
      assertThat(before.passes())
          .as("a first pass of over a second is followed by another")
          .isGreaterThanOrEqualTo(2);
      assertThat(before.copied())
          .as("every slot of the stream, each installed once over the passes")
          .isEqualTo(slots);
      assertNothingLost(c, healed, acked);
    }
  }

  @Test
  void aNodeStartedWithoutACopyLimitJoinsAtOnce() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      List<Acked> acked = new ArrayList<>();
      Endpoint victim = removedWhileWritten(c, acked, 2, 80);

      c.restart(victim, false, cfg -> cfg.withPreJoinCopyLimit(Duration.ZERO));
      Layout healed = HealTest.awaitFullStrength(c, victim, acked);

      assertThat(c.node(victim).preJoinCopy()).isEqualTo(PreJoinCopy.Result.NONE);
      assertThat(c.node(victim).lastRebuild().getEntriesCopied())
          .as("the rebuild copied what it missed")
          .isPositive();
      assertNothingLost(c, healed, acked);
    }
  }
}
