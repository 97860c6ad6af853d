package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Drains onto the other nodes: a node leaving on request with no spare hands its places, in every
 * segment, to nodes that were not in those chains, one node at a time, each a rebuilding replica of
 * the chains it takes while it keeps serving its own; then it leaves. No layout of the drain has a
 * chain with fewer serving replicas than the layout before it, and the end has every chain of every
 * segment at R without the node.
 */
class LayoutMemberDrainTest {
  private static Endpoint node(int i) {
    return new Endpoint("10.0.3." + (i + 1), 9000);
  }

  static Stream<Arguments> clusters() {
    List<Arguments> out = new ArrayList<>();
    for (int n = 3; n <= 6; n++) {
      for (int r = 1; r <= Math.min(3, n - 1); r++) {
        for (int old = 0; old < n; old++) {
          out.add(Arguments.of(n, r, old));
        }
      }
    }
    return out.stream();
  }

  /** {@code n} nodes, R = {@code r}, one closed segment whose chains differ from the open one's. */
  private static Layout cluster(int n, int r) {
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(node(i));
    }
    Layout first = LayoutChanges.initial("c", nodes, r);
    Segment s = first.currentSegment();
    List<List<Endpoint>> shifted = new ArrayList<>(s.log().subList(1, s.log().size()));
    shifted.add(s.log().get(0));
    return new Layout(
        "c",
        3,
        first.sequencer(),
        List.of(
            new Segment(0, 50, shifted, s.stream()),
            new Segment(50, Segment.OPEN, s.log(), s.stream())),
        r,
        List.of());
  }

  /** The member the manager picks: the one that takes the most places, then document order. */
  private static Endpoint pick(Layout layout, Endpoint old) {
    Endpoint best = null;
    int most = 0;
    for (Endpoint e : layout.allServers()) {
      int takes = MemberChanges.drainTakes(layout, e, old).size();
      if (takes > most) {
        best = e;
        most = takes;
      }
    }
    return best;
  }

  @ParameterizedTest(name = "N = {0}, R = {1}, node {2} drained")
  @MethodSource("clusters")
  void theNodesPlacesGoToTheOthersAndNoChainEverServesWithFewer(int n, int r, int oldIndex) {
    Endpoint old = node(oldIndex);
    Layout layout = MemberChanges.withDraining(cluster(n, r), old);
    assertThat(layout.draining()).containsExactly(old);
    assertThat(Layout.fromJson(layout.toJson())).isEqualTo(layout);
    long tail = 100;
    int steps = 0;
    while (stillHolds(layout, old)) {
      assertThat(steps++).as("drain steps").isLessThan(4 * n);
      Endpoint member = pick(layout, old);
      assertThat(member).as("someone takes a place of %s in %s", old, layout.toJson()).isNotNull();
      Layout joined = MemberChanges.withMemberDrain(layout, member, old, tail);
      assertThat(Layout.fromJson(joined.toJson())).isEqualTo(joined);
      assertServingKept(layout, joined);
      assertThat(joined.replacing()).containsEntry(member, old);
      tail += 100;
      Layout promoted = LayoutChanges.promoted(joined, member, tail);
      assertThat(Layout.fromJson(promoted.toJson())).isEqualTo(promoted);
      assertServingKept(joined, promoted);
      assertThat(promoted.rebuilding()).isEmpty();
      assertThat(promoted.draining()).containsExactly(old);
      assertThat(promoted.removed())
          .as("it leaves only once it holds no place")
          .doesNotContain(old);
      for (Segment s : promoted.segments()) {
        for (List<Endpoint> chain : concat(s.log(), s.stream())) {
          assertThat(chain.size()).as("chain %s", chain).isLessThanOrEqualTo(r);
        }
      }
      layout = promoted;
    }
    Layout done = MemberChanges.drained(layout, old, tail);
    assertThat(Layout.fromJson(done.toJson())).isEqualTo(done);
    assertThat(done.allServers()).doesNotContain(old);
    assertThat(done.removed()).contains(old);
    assertThat(done.retired()).contains(old);
    assertThat(done.draining()).isEmpty();
    for (Segment s : done.segments()) {
      for (List<Endpoint> chain : concat(s.log(), s.stream())) {
        assertThat(chain).as("every chain of every segment keeps R replicas").hasSize(r);
      }
    }
  }

  @Test
  void aDrainStepIsRefusedWhenItMakesNoSense() {
    Layout layout = cluster(4, 3);
    Endpoint old = node(3);
    assertThatThrownBy(() -> MemberChanges.withMemberDrain(layout, node(0), old, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not draining");
    Layout draining = MemberChanges.withDraining(layout, old);
    Endpoint newcomer = new Endpoint("10.0.9.9", 9000);
    assertThatThrownBy(() -> LayoutChanges.withGrowth(draining, newcomer, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("being drained");
    assertThatThrownBy(() -> LayoutChanges.withReplacement(draining, node(0), newcomer, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("being drained");
    assertThatThrownBy(() -> MemberChanges.withDraining(draining, old))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("draining already");
    assertThatThrownBy(() -> MemberChanges.drained(draining, old, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("still holds a place");
    assertThatThrownBy(() -> MemberChanges.withMemberDrain(draining, old, old, 100))
        .isInstanceOf(IllegalArgumentException.class);
    Layout one = MemberChanges.withMemberDrain(draining, pick(draining, old), old, 100);
    Endpoint other = pick(draining, old).equals(node(0)) ? node(1) : node(0);
    assertThatThrownBy(() -> MemberChanges.withMemberDrain(one, other, old, 200))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rebuilding");
    // The node leaving fails half way: it is removed, and retired (it was leaving on request).
    Layout failed = LayoutChanges.withoutNode(one, old, 200);
    assertThat(failed.draining()).isEmpty();
    assertThat(failed.retired()).contains(old);
    assertThat(failed.replacing()).isEmpty();
  }

  /**
   * Every chain of {@code after}'s current segment has at least as many serving replicas as the
   * same chain had in {@code before}'s, and at least R.
   */
  private static void assertServingKept(Layout before, Layout after) {
    Segment was = before.currentSegment();
    Segment now = after.currentSegment();
    for (int k = 0; k < now.log().size() + now.stream().size(); k++) {
      boolean log = k < now.log().size();
      int c = log ? k : k - now.log().size();
      assertThat(after.serving(now, log, c).size())
          .as("%s chain %d at epoch %d", log ? "log" : "stream", c, after.epoch())
          .isGreaterThanOrEqualTo(before.serving(was, log, c).size())
          .isGreaterThanOrEqualTo(after.replication());
    }
  }

  private static boolean stillHolds(Layout layout, Endpoint old) {
    return layout.segments().stream().anyMatch(s -> MemberChanges.holdsAPlace(s, old));
  }

  private static List<List<Endpoint>> concat(List<List<Endpoint>> a, List<List<Endpoint>> b) {
    List<List<Endpoint>> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
