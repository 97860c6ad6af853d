package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.protocol.Endpoint;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a returning node copies before it joins, and for how long ({@link PreJoinCopy}). */
class PreJoinCopyRulesTest {
  private static final Endpoint A = new Endpoint("a", 1);
  private static final Endpoint B = new Endpoint("b", 1);
  private static final Endpoint C = new Endpoint("c", 1);
  private static final Endpoint D = new Endpoint("d", 1);
  private static final ClusterConfig CONFIG = ClusterConfig.of("zk:2181", "t");

  @Test
  void aRemovedNodeForeseesTheJoinTheManagerWouldMake() {
    Layout removed =
        LayoutChanges.withoutNode(LayoutChanges.initial("t", List.of(A, B, C), 3), C, 10);
    Layout foreseen = PreJoinCopy.foreseenJoin(removed, C);
    assertThat(foreseen).isEqualTo(LayoutChanges.withRebuilding(removed, C, 11));
    assertThat(foreseen.isRebuilding(C)).isTrue();
  }

  @Test
  void noCopyForANodeInTheChainsARetiredOneOrWhileASpareWouldJoinFirst() {
    Layout all = LayoutChanges.initial("t", List.of(A, B, C), 3);
    assertThat(PreJoinCopy.foreseenJoin(all, C)).as("in the chains").isNull();
    Layout removed = LayoutChanges.withoutNode(all, C, 10);
    assertThat(PreJoinCopy.foreseenJoin(LayoutChanges.retired(removed, C), C))
        .as("left on request")
        .isNull();
    assertThat(PreJoinCopy.foreseenJoin(LayoutChanges.withSpare(removed, D), C))
        .as("a spare answers first")
        .isNull();
    assertThat(PreJoinCopy.foreseenJoin(removed, D)).as("not of this cluster").isNull();
  }

  @Test
  void theLimitIsHalfTheMemberHealDelayWhereAMemberCouldTakeThePlace() {
    Layout three =
        LayoutChanges.withoutNode(LayoutChanges.initial("t", List.of(A, B, C), 3), C, 10);
    assertThat(PreJoinCopy.limit(CONFIG, three))
        .as("no other member could join: the configured limit")
        .isEqualTo(ClusterConfig.DEFAULT_PRE_JOIN_COPY_LIMIT);
    Layout four =
        LayoutChanges.withoutNode(LayoutChanges.initial("t", List.of(A, B, C, D), 3), D, 10);
    assertThat(PreJoinCopy.limit(CONFIG, four)).isEqualTo(Duration.ofSeconds(15));
    assertThat(PreJoinCopy.limit(CONFIG.withMemberHealDelay(Duration.ZERO), four)).isZero();
    assertThat(PreJoinCopy.limit(CONFIG.withPreJoinCopyLimit(Duration.ofSeconds(5)), four))
        .isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void anotherPassFollowsAPassOfOverASecondWhileThePassesShorten() {
    long second = Duration.ofSeconds(1).toNanos();
    assertThat(PreJoinCopy.anotherPass(1, 3 * second, Long.MAX_VALUE)).isTrue();
    assertThat(PreJoinCopy.anotherPass(1, second - 1, Long.MAX_VALUE))
        .as("a short pass: what the chains took meanwhile is left to the rebuild")
        .isFalse();
    assertThat(PreJoinCopy.anotherPass(2, 2 * second, 3 * second)).isTrue();
    assertThat(PreJoinCopy.anotherPass(2, 3 * second, 2 * second))
        .as("a pass no shorter than the one before: the writes outrun the copy")
        .isFalse();
    assertThat(PreJoinCopy.anotherPass(PreJoinCopy.MAX_PASSES, 2 * second, 3 * second))
        .as("the last pass")
        .isFalse();
  }
}
