package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Healing onto members: in a cluster with more nodes than R, the chains a failed node left short
 * are joined by nodes of the cluster that were not in them, each a rebuilding replica of those
 * chains only while it keeps serving, and deciding, the chains it was in.
 */
class LayoutMemberHealTest {
  private static Endpoint node(int i) {
    return new Endpoint("10.0.2." + (i + 1), 9000);
  }

  static Stream<Arguments> clusters() {
    List<Arguments> out = new ArrayList<>();
    for (int n = 3; n <= 6; n++) {
      for (int r = 2; r <= Math.min(3, n - 1); r++) {
        for (int dead = 0; dead < n; dead++) {
          out.add(Arguments.of(n, r, dead));
        }
      }
    }
    return out.stream();
  }

  /** {@code n} nodes, R = {@code r}, with one closed segment, and node {@code dead} removed. */
  private static Layout shortOfOne(int n, int r, int dead) {
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(node(i));
    }
    Layout first = LayoutChanges.initial("c", nodes, r);
    Segment s = first.currentSegment();
    Layout two =
        new Layout(
            "c",
            3,
            first.sequencer(),
            List.of(
                new Segment(0, 50, s.log(), s.stream()),
                new Segment(50, Segment.OPEN, s.log(), s.stream())),
            r,
            List.of());
    return LayoutChanges.withoutNode(two, node(dead), 80);
  }

  /**
   * The member {@code ClusterManager} would pick: fewest places, then most joins, then not the
   * sequencer.
   */
  private static Endpoint pick(Layout layout) {
    Endpoint best = null;
    long bestPlaces = Long.MAX_VALUE;
    int bestJoins = 0;
    for (Endpoint e : layout.allServers()) {
      List<String> joins = MemberChanges.memberJoins(layout, e);
      if (joins.isEmpty()) {
        continue;
      }
      long places =
          Stream.concat(
                  layout.currentSegment().log().stream(), layout.currentSegment().stream().stream())
              .filter(c -> c.contains(e))
              .count();
      boolean better =
          places < bestPlaces
              || (places == bestPlaces
                  && (joins.size() > bestJoins
                      || (joins.size() == bestJoins && best.equals(layout.sequencer()))));
      if (better) {
        best = e;
        bestPlaces = places;
        bestJoins = joins.size();
      }
    }
    return best;
  }

  @ParameterizedTest(name = "N = {0}, R = {1}, node {2} failed")
  @MethodSource("clusters")
  void membersRestoreEveryChainAndKeepServingTheirOwn(int n, int r, int dead) {
    Layout layout = shortOfOne(n, r, dead);
    long tail = 100;
    int rounds = 0;
    while (!LayoutChanges.underReplicated(layout).isEmpty()) {
      assertThat(rounds++).as("rounds of healing").isLessThan(2 * n);
      Endpoint member = pick(layout);
      assertThat(member)
          .as("a member can join the short chains of %s", layout.toJson())
          .isNotNull();
      List<String> joins = MemberChanges.memberJoins(layout, member);
      Layout joined = MemberChanges.withMemberRebuilding(layout, member, tail);

      assertThat(Layout.fromJson(joined.toJson())).isEqualTo(joined);
      assertThat(joined.epoch()).isEqualTo(layout.epoch() + 1);
      assertThat(joined.currentSegment().start()).isEqualTo(tail);
      JoinedChains scope = joined.rebuildingChains().get(member);
      assertThat(scope.from()).isEqualTo(tail);
      assertThat(joined.incarnations()).isEqualTo(layout.incarnations());
      Segment before = layout.currentSegment();
      Segment now = joined.currentSegment();
      for (boolean log : new boolean[] {true, false}) {
        List<List<Endpoint>> was = log ? before.log() : before.stream();
        List<List<Endpoint>> is = log ? now.log() : now.stream();
        for (int c = 0; c < was.size(); c++) {
          boolean joins1 = joins.contains((log ? "log " : "stream ") + c);
          assertThat(joined.serving(now, log, c))
              .as("%s chain %d keeps its serving replicas, in order", log ? "log" : "stream", c)
              .isEqualTo(was.get(c));
          assertThat(is.get(c)).isEqualTo(joins1 ? prepend(member, was.get(c)) : was.get(c));
          assertThat(joined.rebuildsIn(member, now, log, c)).isEqualTo(joins1);
        }
      }
      // Addresses of the new segment in a joined log chain are rebuilt; every other one is served.
      for (long a = tail; a < tail + 3L * now.log().size(); a++) {
        boolean rebuilt = scope.log().contains((int) (a % now.log().size()));
        assertThat(joined.rebuildsLog(member, a)).isEqualTo(rebuilt);
        assertThat(joined.servingLog(a).contains(member))
            .isEqualTo(now.log().get((int) (a % now.log().size())).contains(member) && !rebuilt);
      }
      for (long a = 0; a < tail; a++) {
        assertThat(joined.rebuildsLog(member, a)).as("address %d of a closed segment", a).isFalse();
      }
      tail += 100;
      Layout promoted = LayoutChanges.promoted(joined, member, tail);
      assertThat(promoted.rebuilding()).isEmpty();
      assertThat(promoted.rebuildingChains()).isEmpty();
      assertThat(Layout.fromJson(promoted.toJson())).isEqualTo(promoted);
      // Every chain keeps its decider: the member was put at the head.
      for (int c = 0; c < now.log().size(); c++) {
        List<Endpoint> chain = promoted.currentSegment().log().get(c);
        List<Endpoint> old = now.log().get(c);
        assertThat(chain.get(chain.size() - 1)).isEqualTo(old.get(old.size() - 1));
      }
      assertThat(promoted.currentSegment().log()).isEqualTo(now.log());
      layout = promoted;
    }
    for (Segment s : layout.segments()) {
      for (List<Endpoint> chain : concat(s.log(), s.stream())) {
        assertThat(chain).as("every chain of every segment has R replicas").hasSize(r);
        assertThat(Set.copyOf(chain)).hasSize(r);
        assertThat(chain).doesNotContain(node(dead));
      }
    }
  }

  @Test
  void aStreamEntrysPlanVisitsTheRebuildingMemberButNeverEndsThere() {
    Layout layout = shortOfOne(4, 3, 3);
    Endpoint member = pick(layout);
    Layout joined = MemberChanges.withMemberRebuilding(layout, member, 100);
    JoinedChains scope = joined.rebuildingChains().get(member);
    Random random = new Random(7);
    for (int i = 0; i < 500; i++) {
      StreamId s = StreamId.of("s" + random.nextInt(1_000_000));
      ChainPlan plan = ChainPlan.of(joined, 100 + i, List.of(s));
      int c = joined.streamChainIndex(s);
      boolean rebuilt = scope.stream().contains(c);
      assertThat(joined.rebuildsStream(member, c)).isEqualTo(rebuilt);
      assertThat(plan.last().endpoint())
          .isEqualTo(ChainPlan.of(layout, 100 + i, List.of(s)).last().endpoint());
      if (rebuilt) {
        assertThat(plan.visits().stream().map(ChainPlan.Visit::endpoint)).contains(member);
      }
    }
  }

  @Test
  void aNodeRebuildingEveryChainItIsInRebuildsNoChainItIsNotIn() {
    Layout layout = shortOfOne(5, 3, 4);
    Endpoint spare = new Endpoint("10.0.9.9", 9000);
    Layout joined = LayoutChanges.withRebuilding(layout, spare, 100);
    Segment open = joined.currentSegment();
    for (int c = 0; c < open.stream().size(); c++) {
      assertThat(joined.rebuildsStream(spare, c)).isEqualTo(open.stream().get(c).contains(spare));
    }
    for (long a = 100; a < 100 + open.log().size(); a++) {
      assertThat(joined.rebuildsLog(spare, a)).isEqualTo(joined.logChain(a).contains(spare));
    }
    assertThat(open.stream()).anyMatch(c -> !c.contains(spare));
  }

  @Test
  void refusesWhatWouldNotBeAMemberHeal() {
    Layout layout = shortOfOne(4, 3, 3);
    Endpoint member = pick(layout);
    Layout joined = MemberChanges.withMemberRebuilding(layout, member, 100);
    Endpoint other =
        joined.allServers().stream().filter(e -> !e.equals(member)).findFirst().orElseThrow();
    assertThatThrownBy(() -> MemberChanges.withMemberRebuilding(joined, other, 200))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rebuilding");
    Layout full = LayoutChanges.promoted(joined, member, 200);
    while (!LayoutChanges.underReplicated(full).isEmpty()) {
      Endpoint next = pick(full);
      full = LayoutChanges.promoted(MemberChanges.withMemberRebuilding(full, next, 300), next, 400);
    }
    Layout healed = full;
    assertThat(MemberChanges.memberJoins(healed, member)).isEmpty();
    assertThatThrownBy(() -> MemberChanges.withMemberRebuilding(healed, member, 500))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lacks a replica");
  }

  @Test
  void aLayoutWhoseRebuildingChainsAreWrongIsRefused() {
    Layout layout = shortOfOne(4, 3, 3);
    Endpoint member = pick(layout);
    Layout joined = MemberChanges.withMemberRebuilding(layout, member, 100);
    JoinedChains scope = joined.rebuildingChains().get(member);
    Segment open = joined.currentSegment();
    int notIn = -1;
    for (int c = 0; c < open.log().size(); c++) {
      if (!open.log().get(c).contains(member)) {
        notIn = c;
      }
    }
    Map<Endpoint, JoinedChains> wrongChain =
        Map.of(member, new JoinedChains(100, Set.of(notIn), scope.stream()));
    assertThatThrownBy(() -> withChains(joined, joined.rebuilding(), wrongChain))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("which the node is not in");
    Map<Endpoint, JoinedChains> wrongStart =
        Map.of(member, new JoinedChains(101, scope.log(), scope.stream()));
    assertThatThrownBy(() -> withChains(joined, joined.rebuilding(), wrongStart))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("where a segment starts");
    assertThatThrownBy(() -> withChains(joined, Map.of(), joined.rebuildingChains()))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("not a rebuilding replica");
    // A chain it serves in full may end with it; one it rebuilds may not.
    int full = -1;
    for (int c = 0; c < open.log().size(); c++) {
      List<Endpoint> chain = open.log().get(c);
      if (chain.get(chain.size() - 1).equals(member)) {
        full = c;
      }
    }
    if (full >= 0) {
      Map<Endpoint, JoinedChains> decides =
          Map.of(member, new JoinedChains(100, Set.of(full), scope.stream()));
      assertThatThrownBy(() -> withChains(joined, joined.rebuilding(), decides))
          .isInstanceOf(LayoutException.class)
          .hasMessageContaining("never decides");
    }
    String json = joined.toJson().replace("\"from\":100", "\"from\":\"x\"");
    assertThatThrownBy(() -> Layout.fromJson(json))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("'from' must be an integer");
    String dup = joined.toJson().replaceFirst("\"log\":\\[(\\d+)", "\"log\":[$1,$1");
    assertThatThrownBy(() -> Layout.fromJson(dup))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("each once");
  }

  private static Layout withChains(
      Layout l, Map<Endpoint, Long> rebuilding, Map<Endpoint, JoinedChains> chains) {
    return new Layout(
        l.clusterId(),
        l.epoch(),
        l.sequencer(),
        l.segments(),
        l.replication(),
        l.removed(),
        l.incarnations(),
        rebuilding,
        l.spares(),
        l.retired(),
        l.replacing(),
        l.streamSince(),
        l.streamSplits(),
        chains);
  }

  private static List<Endpoint> prepend(Endpoint e, List<Endpoint> chain) {
    List<Endpoint> out = new ArrayList<>();
    out.add(e);
    out.addAll(chain);
    return out;
  }

  private static List<List<Endpoint>> concat(List<List<Endpoint>> a, List<List<Endpoint>> b) {
    List<List<Endpoint>> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
