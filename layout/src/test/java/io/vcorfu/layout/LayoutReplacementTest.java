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
 * Drains: a node replaced by a new one hands over its places before it leaves. The new node joins,
 * as a rebuilding replica, every chain the old one is in; its promotion puts it in the old node's
 * place in every chain of every segment and takes the old node out. No layout of the drain has a
 * chain with fewer serving replicas than before it, and either node failing half way leaves a valid
 * layout.
 */
class LayoutReplacementTest {
  static final Endpoint X = new Endpoint("10.0.9.9", 9000);

  private static Endpoint node(int i) {
    return new Endpoint("10.0.1." + (i + 1), 9000);
  }

  static Stream<Arguments> clusters() {
    List<Arguments> out = new ArrayList<>();
    for (int n = 1; n <= 5; n++) {
      for (int r = 1; r <= Math.min(3, n); r++) {
        for (int old = 0; old < n; old++) {
          out.add(Arguments.of(n, r, old));
        }
      }
    }
    return out.stream();
  }

  /** A cluster of {@code n} nodes whose layout has one closed segment already. */
  private static Layout cluster(int n, int r) {
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(node(i));
    }
    Layout first = LayoutChanges.initial("c", nodes, r);
    Segment s = first.currentSegment();
    return new Layout(
        "c",
        3,
        first.sequencer(),
        List.of(
            new Segment(0, 50, s.log(), s.stream()),
            new Segment(50, Segment.OPEN, s.log(), s.stream())),
        r,
        List.of());
  }

  @ParameterizedTest(name = "N = {0}, R = {1}, node {2} replaced")
  @MethodSource("clusters")
  void theNewNodeTakesEveryPlaceOfTheOldOne(int n, int r, int oldIndex) {
    Layout before = cluster(n, r);
    Endpoint old = node(oldIndex);

    Layout joined = LayoutChanges.withReplacement(before, old, X, 100);

    assertThat(joined.epoch()).isEqualTo(before.epoch() + 1);
    assertThat(joined.replacing()).containsEntry(X, old).hasSize(1);
    assertThat(joined.isRebuilding(X)).isTrue();
    assertThat(joined.segments()).hasSize(3);
    assertThat(joined.currentSegment().start()).isEqualTo(100);
    for (String kind : List.of("log", "stream")) {
      List<List<Endpoint>> was = chains(before.currentSegment(), kind);
      List<List<Endpoint>> now = chains(joined.currentSegment(), kind);
      for (int c = 0; c < was.size(); c++) {
        assertThat(joined.serving(joined.currentSegment(), kind.equals("log"), c))
            .as("%s chain %d keeps its serving replicas, in order", kind, c)
            .isEqualTo(was.get(c));
        assertThat(now.get(c).contains(X)).isEqualTo(was.get(c).contains(old));
      }
    }
    assertThat(Layout.fromJson(joined.toJson())).isEqualTo(joined);
    assertThat(LayoutChanges.closedLogChainsToCopy(joined, X))
        .as("the closed chains of the old node are copied")
        .hasSize(
            (int)
                joined.segments().subList(0, 2).stream()
                    .flatMap(seg -> seg.log().stream())
                    .filter(c -> c.contains(old))
                    .count());

    Layout done = LayoutChanges.promoted(joined, X, 200);

    assertThat(done.epoch()).isEqualTo(joined.epoch() + 1);
    assertThat(done.replacing()).isEmpty();
    assertThat(done.rebuilding()).isEmpty();
    assertThat(done.allServers()).doesNotContain(old).contains(X);
    assertThat(done.removed()).containsExactly(old);
    assertThat(done.retired()).containsExactly(old);
    assertThat(done.sequencer()).isEqualTo(old.equals(before.sequencer()) ? X : before.sequencer());
    for (int s = 0; s < done.segments().size(); s++) {
      Segment seg = done.segments().get(s);
      Segment was = before.segments().get(Math.min(s, before.segments().size() - 1));
      for (String kind : List.of("log", "stream")) {
        List<List<Endpoint>> then = chains(was, kind);
        List<List<Endpoint>> now = chains(seg, kind);
        for (int c = 0; c < now.size(); c++) {
          List<Endpoint> expected =
              then.get(c).stream().map(e -> e.equals(old) ? X : e).sorted(ORDER).toList();
          assertThat(now.get(c).stream().sorted(ORDER).toList())
              .as("segment %d %s chain %d: the old node's place is the new node's", s, kind, c)
              .isEqualTo(expected);
        }
      }
    }
    assertThat(LayoutChanges.underReplicated(done)).isEmpty();
    assertThat(Layout.fromJson(done.toJson())).isEqualTo(done);
  }

  private static final java.util.Comparator<Endpoint> ORDER =
      java.util.Comparator.comparing(Endpoint::toString);

  @ParameterizedTest(name = "N = {0}, R = {1}, node {2} replaced, then lost")
  @MethodSource("clusters")
  void theOldNodeFailingMidDrainLeavesAHealingRebuild(int n, int r, int oldIndex) {
    Layout before = cluster(n, r);
    Endpoint old = node(oldIndex);
    Layout joined = LayoutChanges.withReplacement(before, old, X, 100);
    boolean onlyCopy =
        chains(before.currentSegment(), "log").contains(List.of(old))
            || chains(before.currentSegment(), "stream").contains(List.of(old));
    if (onlyCopy) {
      // R = 1: the old node holds the only serving copy; losing it loses that chain.
      assertThatThrownBy(() -> LayoutChanges.withoutNode(joined, old, 150))
          .isInstanceOf(ChainLostException.class);
      return;
    }

    Layout lost = LayoutChanges.withoutNode(joined, old, 150);

    assertThat(lost.replacing()).isEmpty();
    assertThat(lost.isRebuilding(X)).as("X restores the chains the old node left").isTrue();
    assertThat(lost.retired()).isEmpty();
    Layout healed = LayoutChanges.promoted(lost, X, 200);
    assertThat(LayoutChanges.underReplicated(healed)).isEmpty();
    assertThat(healed.allServers()).doesNotContain(old);
  }

  @ParameterizedTest(name = "N = {0}, R = {1}, node {2} replaced, the new node lost")
  @MethodSource("clusters")
  void theNewNodeFailingMidDrainLeavesTheOldOneServing(int n, int r, int oldIndex) {
    Layout before = cluster(n, r);
    Endpoint old = node(oldIndex);
    Layout joined = LayoutChanges.withReplacement(before, old, X, 100);

    Layout lost = LayoutChanges.withoutNode(joined, X, 150);

    assertThat(lost.replacing()).isEmpty();
    assertThat(lost.rebuilding()).isEmpty();
    assertThat(lost.currentSegment().log()).isEqualTo(before.currentSegment().log());
    assertThat(lost.currentSegment().stream()).isEqualTo(before.currentSegment().stream());
    assertThat(lost.allServers()).contains(old);
  }

  @Test
  void aDrainIsRefusedWhileAnotherReplicaRebuildsOrWhenTheNodesDoNotFit() {
    Layout three = cluster(3, 3);
    Layout joined = LayoutChanges.withReplacement(three, node(1), X, 100);
    Endpoint y = new Endpoint("10.0.9.10", 9000);
    assertThatThrownBy(() -> LayoutChanges.withReplacement(joined, node(2), y, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rebuilding");
    assertThatThrownBy(() -> LayoutChanges.withReplacement(three, node(1), node(2), 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("in the layout");
    assertThatThrownBy(() -> LayoutChanges.withReplacement(three, y, X, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no serving place");
  }

  @Test
  void aLayoutThatNamesAReplacementThatIsNotRebuildingIsRefused() {
    Layout three = cluster(3, 3);
    String plain = three.toJson();
    String json =
        plain.substring(0, plain.length() - 1)
            + ",\"replacing\":{\"10.0.1.1:9000\":\"10.0.1.2:9000\"}}";
    assertThatThrownBy(() -> Layout.fromJson(json))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("must be a rebuilding replica");
  }

  private static List<List<Endpoint>> chains(Segment s, String kind) {
    return kind.equals("log") ? s.log() : s.stream();
  }
}
