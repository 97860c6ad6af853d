package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.Endpoint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Rebuilding replicas and spares: how a layout changes to restore its replication factor. */
class LayoutHealingTest {
  static final Endpoint A = new Endpoint("10.0.0.1", 9000);
  static final Endpoint B = new Endpoint("10.0.0.2", 9000);
  static final Endpoint C = new Endpoint("10.0.0.3", 9000);
  static final Endpoint D = new Endpoint("10.0.0.4", 9000);

  /** Three nodes, R = 3, with C removed at segment start 100. */
  private static Layout withoutC() {
    return LayoutChanges.withoutNode(LayoutChanges.initial("c", List.of(A, B, C), 3), C, 100);
  }

  @Test
  void aRebuildingReplicaJoinsTheHeadOfEveryShortChainOfANewSegment() {
    Layout shrunk = withoutC();
    assertThat(LayoutChanges.underReplicated(shrunk))
        .containsExactly("log 0", "log 1", "log 2", "stream 0", "stream 1", "stream 2");

    Layout joined = LayoutChanges.withRebuilding(shrunk, C, 250);

    assertThat(joined.epoch()).isEqualTo(shrunk.epoch() + 1);
    assertThat(joined.rebuilding()).isEqualTo(Map.of(C, joined.epoch()));
    assertThat(joined.removed()).isEmpty();
    Segment open = joined.currentSegment();
    assertThat(open.start()).isEqualTo(250);
    for (List<Endpoint> chain : open.log()) {
      assertThat(chain).hasSize(3).first().isEqualTo(C);
    }
    for (List<Endpoint> chain : open.stream()) {
      assertThat(chain).hasSize(3).first().isEqualTo(C);
    }
    // Older segments do not name it: what they hold is copied first.
    assertThat(joined.segments().get(1).log()).allSatisfy(c -> assertThat(c).doesNotContain(C));
    assertThat(LayoutChanges.closedLogChainsToCopy(joined, C)).hasSize(6); // two closed segments
    assertThat(LayoutChanges.underReplicated(joined)).isEmpty();
    assertThat(Layout.fromJson(joined.toJson())).isEqualTo(joined);
  }

  @Test
  void promotionAddsTheReplicaToTheClosedSegmentsChainsAndKeepsEveryDecider() {
    Layout joined = LayoutChanges.withRebuilding(withoutC(), C, 250);

    Layout promoted = LayoutChanges.promoted(joined, C);

    assertThat(promoted.rebuilding()).isEmpty();
    assertThat(promoted.epoch()).isEqualTo(joined.epoch() + 1);
    for (int s = 0; s < joined.segments().size(); s++) {
      List<List<Endpoint>> before = joined.segments().get(s).log();
      List<List<Endpoint>> after = promoted.segments().get(s).log();
      for (int c = 0; c < before.size(); c++) {
        assertThat(after.get(c)).hasSize(3).contains(C);
        assertThat(after.get(c).get(2)).isEqualTo(before.get(c).get(before.get(c).size() - 1));
      }
    }
    assertThat(LayoutChanges.closedLogChainsToCopy(promoted, C)).isEmpty();
    assertThatThrownBy(() -> LayoutChanges.promoted(promoted, C))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a rebuilding replica");
  }

  @Test
  void aChainWhoseOnlyServingReplicaDiesIsLostEvenWithARebuildingOne() {
    Layout twoReplicas =
        LayoutChanges.withoutNode(LayoutChanges.initial("c", List.of(A, B), 2), B, 10);
    Layout joined = LayoutChanges.withRebuilding(twoReplicas, B, 20);

    assertThatThrownBy(() -> LayoutChanges.withoutNode(joined, A, 30))
        .isInstanceOf(ChainLostException.class);
    // The rebuilding replica itself may go: it leaves with its mark.
    Layout gone = LayoutChanges.withoutNode(joined, B, 30);
    assertThat(gone.rebuilding()).isEmpty();
    assertThat(gone.removed()).containsExactly(B);
  }

  @Test
  void aNewSequencerIsNeverARebuildingReplica() {
    Layout joined = LayoutChanges.withRebuilding(withoutC(), C, 250);
    Layout moved = LayoutChanges.withoutNode(joined, A, 300);
    assertThat(moved.sequencer()).isEqualTo(B);
  }

  @Test
  void aRebuildingReplicaMayNeverBeTheLastOfAChain() {
    Layout joined = LayoutChanges.withRebuilding(withoutC(), C, 250);
    String json =
        joined.toJson().replace("\"rebuilding\":{", "\"rebuilding\":{\"10.0.0.2:9000\":2,");

    assertThatThrownBy(() -> Layout.fromJson(json))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("rebuilding replica 10.0.0.2:9000 is the last replica of a chain");
  }

  @Test
  void joiningAFullLayoutOrJoiningTwiceIsRefused() {
    Layout full = LayoutChanges.initial("c", List.of(A, B, C), 3);
    assertThatThrownBy(() -> LayoutChanges.withRebuilding(full, D, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nothing for 10.0.0.4:9000 to restore");
    Layout joined = LayoutChanges.withRebuilding(withoutC(), C, 250);
    assertThatThrownBy(() -> LayoutChanges.withRebuilding(joined, C, 300))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already");
  }

  @Test
  void sparesAreOutsideEveryChainAndRoundTrip() {
    Layout full = LayoutChanges.initial("c", List.of(A, B, C), 3);
    Layout spared = LayoutChanges.withSpare(full, D);

    assertThat(spared.epoch()).isEqualTo(full.epoch());
    assertThat(spared.spares()).containsExactly(D);
    assertThat(spared.allServers()).doesNotContain(D);
    assertThat(Layout.fromJson(spared.toJson())).isEqualTo(spared);
    assertThatThrownBy(() -> LayoutChanges.withSpare(spared, D))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a spare");
    assertThatThrownBy(() -> LayoutChanges.withSpare(spared, A))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("in the layout");

    // A spare restores a chain once one is short, and stops being a spare.
    Layout shrunk = LayoutChanges.withoutNode(spared, C, 5);
    Layout joined = LayoutChanges.withRebuilding(shrunk, D, 6);
    assertThat(joined.spares()).isEmpty();
    assertThat(joined.isRebuilding(D)).isTrue();
  }
}
