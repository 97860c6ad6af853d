package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.MemberChanges;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.RebuildProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The manager's healing decisions ({@link HealingPlan}), without a cluster: which step comes next
 * for a layout and what the probes say, and when.
 */
class HealingPlanTest {
  private static final long SECOND = 1_000_000_000L;

  private final Set<Endpoint> answering = new HashSet<>();
  private final Map<Endpoint, PingResponse> answers = new HashMap<>();
  private final HealingPlan.Probes probes =
      new HealingPlan.Probes() {
        @Override
        public boolean answering(Endpoint node) {
          return answering.contains(node);
        }

        @Override
        public PingResponse lastAnswer(Endpoint node) {
          return answers.get(node);
        }
      };

  private static Endpoint node(int i) {
    return new Endpoint("10.0.4." + (i + 1), 9000);
  }

  /** Four nodes, R = 3, with the fourth removed after a failure; the other three answer. */
  private Layout fourLosingOne() {
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      nodes.add(node(i));
    }
    Layout layout = LayoutChanges.withoutNode(LayoutChanges.initial("c", nodes, 3), node(3), 10);
    answering.addAll(nodes.subList(0, 3));
    return layout;
  }

  @Test
  void membersHealOnlyAfterTheDelayAndAReturningNodeComesFirst() {
    Layout layout = fourLosingOne();
    HealingPlan plan = new HealingPlan(Duration.ofSeconds(30));

    assertThat(plan.next(layout, 0, probes)).as("the failed node may still come back").isNull();
    assertThat(plan.next(layout, 29 * SECOND, probes)).isNull();
    answering.add(node(3));
    answers.put(node(3), confirmed());
    HealingPlan.Step back = plan.next(layout, 31 * SECOND, probes);
    assertThat(back.what()).isEqualTo("joining " + node(3));
    assertThat(back.change().apply(20).rebuildsAll(node(3))).isTrue();

    answering.remove(node(3));
    HealingPlan.Step member = plan.next(layout, 31 * SECOND, probes);
    assertThat(member.what()).startsWith("joining member ");
    Layout joined = member.change().apply(20);
    Endpoint m = joined.rebuildingChains().keySet().iterator().next();
    assertThat(joined.allServers()).contains(m);
    assertThat(member.why()).contains("have lacked a replica for 31000 ms").contains(m.toString());
  }

  @Test
  void aReturningNodeJoinsOnlyOnceItHasConfirmedTheAgreedLayout() {
    Layout layout = fourLosingOne();
    HealingPlan plan = new HealingPlan(Duration.ofMinutes(10));
    answering.add(node(3));
    answers.put(node(3), PingResponse.getDefaultInstance());
    assertThat(plan.next(layout, SECOND, probes))
        .as("answering, but not yet following the agreed layout (resumed, reconnecting)")
        .isNull();
    answers.put(node(3), confirmed());
    assertThat(plan.next(layout, 2 * SECOND, probes).what()).isEqualTo("joining " + node(3));
  }

  @Test
  void theDelayCountsFromWhenTheChainsWereFirstSeenShort() {
    Layout layout = fourLosingOne();
    Layout full = LayoutChanges.initial("c", List.of(node(0), node(1), node(2)), 3);
    HealingPlan plan = new HealingPlan(Duration.ofSeconds(30));

    assertThat(plan.next(layout, 0, probes)).isNull();
    assertThat(plan.next(full, 20 * SECOND, probes)).as("nothing short").isNull();
    assertThat(plan.next(layout, 40 * SECOND, probes)).as("short again since 40 s").isNull();
    assertThat(plan.next(layout, 71 * SECOND, probes)).isNotNull();
  }

  @Test
  void aFinishedRebuildIsPromotedFirstAndNothingJoinsWhileOneRuns() {
    Layout layout = fourLosingOne();
    HealingPlan plan = new HealingPlan(Duration.ZERO);
    HealingPlan.Step member = plan.next(layout, 0, probes);
    Layout joined = member.change().apply(20);
    Endpoint m = joined.rebuildingChains().keySet().iterator().next();

    answers.put(m, ping(false, joined.epoch()));
    assertThat(plan.next(joined, SECOND, probes)).as("one member at a time").isNull();
    answers.put(m, ping(true, joined.epoch() - 1));
    assertThat(plan.next(joined, SECOND, probes)).as("done against an older epoch").isNull();
    answers.put(m, ping(true, joined.epoch()));
    HealingPlan.Step promote = plan.next(joined, SECOND, probes);
    assertThat(promote.what()).isEqualTo("promoting " + m);
    assertThat(promote.change().apply(30).rebuilding()).isEmpty();
  }

  @Test
  void aDrainPicksTheNodeThatTakesMostAndEndsByRemovingTheNode() {
    List<Endpoint> nodes = List.of(node(0), node(1), node(2), node(3));
    Layout layout = MemberChanges.withDraining(LayoutChanges.initial("c", nodes, 3), node(2));
    answering.addAll(nodes);
    HealingPlan plan = new HealingPlan(Duration.ofMinutes(10));
    long tail = 10;
    for (int step = 0; step < 8 && layout.allServers().contains(node(2)); step++) {
      HealingPlan.Step next = plan.next(layout, step * SECOND, probes);
      assertThat(next).as("step %d of %s", step, layout.toJson()).isNotNull();
      Layout after = next.change().apply(tail += 10);
      if (!after.rebuilding().isEmpty()) {
        Endpoint m = after.rebuilding().keySet().iterator().next();
        assertThat(m).isNotEqualTo(node(2));
        int most = 0;
        for (Endpoint e : nodes) {
          if (!e.equals(node(2))) {
            most = Math.max(most, MemberChanges.drainTakes(layout, e, node(2)).size());
          }
        }
        assertThat(MemberChanges.drainTakes(layout, m, node(2))).hasSize(most);
        answers.put(m, ping(true, after.epoch()));
      }
      layout = after;
    }
    if (!layout.removed().contains(node(2))) {
      layout = plan.next(layout, 9 * SECOND, probes).change().apply(tail + 10);
    }
    assertThat(layout.removed()).contains(node(2));
    assertThat(layout.retired()).contains(node(2));
    assertThat(LayoutChanges.underReplicated(layout)).isEmpty();
    assertThat(plan.next(layout, 10 * SECOND, probes)).isNull();
  }

  private static PingResponse confirmed() {
    return PingResponse.newBuilder().setLayoutConfirmed(true).build();
  }

  private static PingResponse ping(boolean done, long epoch) {
    return PingResponse.newBuilder()
        .setRebuild(RebuildProgress.newBuilder().setSinceEpoch(1).setDone(done).setEpoch(epoch))
        .build();
  }
}
