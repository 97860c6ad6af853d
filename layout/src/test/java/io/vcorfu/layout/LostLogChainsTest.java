package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A log chain whose every replica was lost: the node that held it alone comes back wiped and
 * rebuilds it, in the closed segments only, from the stream replicas; no new entry is planned on
 * it; its promotion puts it back among the current segment's log chains.
 */
class LostLogChainsTest {
  private static Endpoint node(int i) {
    return new Endpoint("10.0.3." + (i + 1), 9000);
  }

  private static List<Endpoint> nodes(int n) {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(node(i));
    }
    return out;
  }

  /** R = 1 on {@code n} nodes, one segment: every node holds its log and stream chain alone. */
  private static Layout alone(int n) {
    return LayoutChanges.initial("c", nodes(n), 1).withEpoch(2);
  }

  @ParameterizedTest(name = "{0} nodes, node {1} lost")
  @CsvSource({"3, 0", "3, 1", "3, 2", "4, 3", "5, 2"})
  void theLostNodeRebuildsItsLogChainInTheClosedSegmentOnly(int n, int lost) {
    Layout before = alone(n);
    Endpoint victim = node(lost);
    List<int[]> alone = LostLogChains.heldAlone(before, victim);
    assertThat(alone).hasSize(1);
    int chain = alone.get(0)[1];

    Layout after = LostLogChains.rebuiltFromStreams(before, victim, 100);

    assertThat(after.epoch()).isEqualTo(3);
    assertThat(after.segments()).hasSize(2);
    Segment closed = after.segments().get(0);
    assertThat(closed.end()).isEqualTo(100);
    assertThat(closed.log()).isEqualTo(before.currentSegment().log());
    assertThat(LostLogChains.fromStreams(after, closed, chain)).isTrue();
    assertThat(LostLogChains.rebuiltBy(after, victim)).hasSize(1);
    assertThat(after.rebuildsAll(victim)).isTrue();
    assertThat(after.serving(closed, true, chain)).as("it serves no read of it yet").isEmpty();
    Segment current = after.currentSegment();
    assertThat(current.start()).isEqualTo(100);
    assertThat(current.log().stream().flatMap(List::stream)).doesNotContain(victim);
    assertThat(current.log()).allMatch(c -> c.size() == 1);
    assertThat(current.stream().get(chain)).as("its stream chain: degraded").isEmpty();
    assertThat(after.incarnations()).doesNotContainKey(victim);
    assertThat(after.sequencer()).isNotEqualTo(victim);
    assertThat(Layout.fromJson(after.toJson())).isEqualTo(after);

    Layout promoted = LayoutChanges.promoted(after, victim, 130);
    assertThat(promoted.isRebuilding(victim)).isFalse();
    assertThat(LostLogChains.rebuiltBy(promoted, victim)).isEmpty();
    assertThat(promoted.segments().get(0).log().get(chain)).containsExactly(victim);
    assertThat(promoted.currentSegment().start()).isEqualTo(130);
    assertThat(promoted.currentSegment().log().stream().flatMap(List::stream))
        .as("striped back in")
        .contains(victim);
    assertThat(Layout.fromJson(promoted.toJson())).isEqualTo(promoted);
  }

  @Test
  void theSequencerMovesWhenItIsTheNodeLost() {
    Layout before = alone(3);
    Layout after = LostLogChains.rebuiltFromStreams(before, before.sequencer(), 10);
    assertThat(after.sequencer()).isNotEqualTo(before.sequencer());
    assertThat(after.isRebuilding(before.sequencer())).isTrue();
  }

  /**
   * R = 2: a node removed first leaves its chains with one replica; the other replica of one of
   * them then holds it alone in every segment, and rebuilds it in each.
   */
  @Test
  void aChainLeftAloneAcrossSegmentsIsRebuiltInEach() {
    Layout before = LayoutChanges.initial("c", nodes(3), 2).withEpoch(2);
    Endpoint first = node(0);
    Layout shrunk = LayoutChanges.withoutNode(before, first, 50);
    List<int[]> alone = new ArrayList<>();
    Endpoint second = null;
    for (Endpoint e : shrunk.allServers()) {
      if (!LostLogChains.heldAlone(shrunk, e).isEmpty()) {
        second = e;
        alone = LostLogChains.heldAlone(shrunk, e);
        break;
      }
    }
    assertThat(second).isNotNull();
    assertThat(alone).as("the same chain in both segments").hasSize(2);

    Layout after = LostLogChains.rebuiltFromStreams(shrunk, second, 70);

    assertThat(LostLogChains.rebuiltBy(after, second)).hasSize(2);
    assertThat(after.segments()).hasSize(3);
    for (List<Endpoint> chain : after.currentSegment().log()) {
      assertThat(chain).isNotEmpty().doesNotContain(second);
    }
    assertThat(Layout.fromJson(after.toJson())).isEqualTo(after);
  }

  @Test
  void refusalsSayWhy() {
    Layout before = alone(3);
    assertThatThrownBy(() -> LostLogChains.rebuiltFromStreams(before, node(7), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not in the layout");
    assertThatThrownBy(() -> LostLogChains.rebuiltFromStreams(before, node(0), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must start after the current one");
    Layout r3 = LayoutChanges.initial("c", nodes(3), 3).withEpoch(2);
    assertThatThrownBy(() -> LostLogChains.rebuiltFromStreams(r3, node(0), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only replica of no log chain");
  }

  /**
   * Only a closed segment's log chain may have a rebuilding node as its only member: the current
   * segment's chains and stream chains always have a decider.
   */
  @Test
  void theValidatorAllowsARebuildingOnlyMemberInClosedLogChainsOnly() {
    Layout before = alone(3);
    Endpoint victim = node(1);
    Layout after = LostLogChains.rebuiltFromStreams(before, victim, 100);
    Map<Endpoint, Long> rebuilding = new HashMap<>(after.rebuilding());

    // The same node alone in a log chain of the current segment instead.
    List<Segment> current = new ArrayList<>(after.segments());
    Segment open = current.get(1);
    List<List<Endpoint>> log = new ArrayList<>(open.log());
    log.set(0, List.of(victim));
    current.set(1, new Segment(open.start(), open.end(), log, open.stream()));
    assertThatThrownBy(
            () ->
                new Layout(
                    "c",
                    after.epoch(),
                    after.sequencer(),
                    current,
                    1,
                    List.of(),
                    Map.of(),
                    rebuilding,
                    List.of(),
                    List.of(),
                    Map.of(),
                    Map.of(),
                    0,
                    Map.of(),
                    List.of()))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("last replica of a chain");

    // Alone in a closed segment's stream chain.
    List<Segment> closedStream = new ArrayList<>(after.segments());
    Segment closed = closedStream.get(0);
    List<List<Endpoint>> stream = new ArrayList<>(closed.stream());
    stream.set(0, List.of(victim));
    closedStream.set(0, new Segment(closed.start(), closed.end(), closed.log(), stream));
    assertThatThrownBy(
            () ->
                new Layout(
                    "c",
                    after.epoch(),
                    after.sequencer(),
                    closedStream,
                    1,
                    List.of(),
                    Map.of(),
                    rebuilding,
                    List.of(),
                    List.of(),
                    Map.of(),
                    Map.of(),
                    0,
                    Map.of(),
                    List.of()))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("last replica of a chain");
  }
}
