package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.layout.ChainLostException.ChainKind;
import io.vcorfu.protocol.Endpoint;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LayoutChangesTest {
  static final Endpoint A = new Endpoint("10.0.0.1", 9000);
  static final Endpoint B = new Endpoint("10.0.0.2", 9000);
  static final Endpoint C = new Endpoint("10.0.0.3", 9000);
  static final Endpoint D = new Endpoint("10.0.0.4", 9000);

  static List<Endpoint> nodes(int n) {
    return IntStream.range(0, n).mapToObj(i -> new Endpoint("10.0.1." + (i + 1), 9000)).toList();
  }

  static Stream<Arguments> clusterShapes() {
    return IntStream.rangeClosed(1, 5)
        .boxed()
        .flatMap(n -> IntStream.rangeClosed(1, n).mapToObj(r -> Arguments.of(n, r)));
  }

  @ParameterizedTest(name = "N={0} R={1}")
  @MethodSource("clusterShapes")
  void initialLayoutRotatesChainsOfLengthRSoEveryNodeHeadsOneChainOfEachKind(int n, int r) {
    List<Endpoint> nodes = nodes(n);
    Layout layout = LayoutChanges.initial("c", nodes, r);

    assertThat(layout.epoch()).isEqualTo(1);
    assertThat(layout.sequencer()).isEqualTo(nodes.get(0));
    assertThat(layout.replication()).isEqualTo(r);
    assertThat(layout.removed()).isEmpty();
    assertThat(layout.segments()).hasSize(1);
    Segment s = layout.currentSegment();
    assertThat(s.start()).isZero();
    assertThat(s.isOpen()).isTrue();
    for (List<List<Endpoint>> chains : List.of(s.log(), s.stream())) {
      assertThat(chains).hasSize(n);
      Map<Endpoint, Integer> memberships = new HashMap<>();
      for (int i = 0; i < n; i++) {
        List<Endpoint> chain = chains.get(i);
        assertThat(chain).hasSize(r);
        for (int k = 0; k < r; k++) {
          assertThat(chain.get(k)).isEqualTo(nodes.get((i + k) % n));
        }
        chain.forEach(e -> memberships.merge(e, 1, Integer::sum));
      }
      assertThat(chains.stream().map(c -> c.get(0)).toList())
          .as("chain heads")
          .containsExactlyElementsOf(nodes);
      assertThat(memberships)
          .as("chains per node")
          .hasSize(n)
          .allSatisfy((e, k) -> assertThat(k).isEqualTo(r));
    }
    assertThat(Layout.fromJson(layout.toJson())).isEqualTo(layout);
  }

  @Test
  void initialRefusesBadArgumentsWithAClearMessage() {
    assertThatThrownBy(() -> LayoutChanges.initial("c", List.of(), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one node");
    assertThatThrownBy(() -> LayoutChanges.initial("c", List.of(A, B, A), 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names " + A + " more than once");
    assertThatThrownBy(() -> LayoutChanges.initial("c", Arrays.asList(A, null), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("null");
    assertThatThrownBy(() -> LayoutChanges.initial("c", List.of(A, B), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 1 and the number of nodes (2), got 0");
    assertThatThrownBy(() -> LayoutChanges.initial("c", List.of(A, B), 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 1 and the number of nodes (2), got 3");
  }

  /** A, B, C, D with R = 3: chains [A B C] [B C D] [C D A] [D A B], of both kinds. */
  static Layout fourNodes() {
    return LayoutChanges.initial("c", List.of(A, B, C, D), 3);
  }

  @Test
  void removingANodeTakesItOutAsHeadMiddleAndLastKeepingTheOthersInOrder() {
    Layout next = LayoutChanges.withoutNode(fourNodes(), B, 0);

    // B was the middle of chain 0, the head of chain 1, absent from chain 2, the last of chain 3.
    List<List<Endpoint>> expected =
        List.of(List.of(A, C), List.of(C, D), List.of(C, D, A), List.of(D, A));
    assertThat(next.epoch()).isEqualTo(2);
    assertThat(next.segments()).hasSize(1);
    assertThat(next.currentSegment().start()).isZero();
    assertThat(next.currentSegment().log()).isEqualTo(expected);
    assertThat(next.currentSegment().stream()).isEqualTo(expected);
    assertThat(next.sequencer()).isEqualTo(A);
    assertThat(next.removed()).containsExactly(B);
    assertThat(next.replication()).isEqualTo(3);
    assertThat(next.allServers()).doesNotContain(B);
  }

  @Test
  void removingTheSequencerMovesItToTheFirstSurvivorInDocumentOrder() {
    Layout layout = fourNodes();
    Layout next = LayoutChanges.withoutNode(layout, A, 0);
    // allServers(): A (sequencer), then log chain 0 [A B C]: B is the first survivor.
    assertThat(next.sequencer()).isEqualTo(B);
    assertThat(next.sequencer())
        .isEqualTo(layout.allServers().stream().filter(e -> !e.equals(A)).findFirst().get());

    Layout again = LayoutChanges.withoutNode(next, B, 0);
    assertThat(again.sequencer()).isEqualTo(C);
    assertThat(again.removed()).containsExactly(A, B);
  }

  @Test
  void aSequencerInNoChainIsReplacedByTheFirstReplica() {
    Layout layout =
        new Layout(
            "c", 3, D, List.of(new Segment(0, -1, List.of(List.of(A, B)), List.of(List.of(C)))));
    Layout next = LayoutChanges.withoutNode(layout, D, 0);
    assertThat(next.sequencer()).isEqualTo(A);
    assertThat(next.segments()).isEqualTo(layout.segments());
    assertThat(next.removed()).containsExactly(D);
    assertThat(next.epoch()).isEqualTo(4);
  }

  @Test
  void aStartAfterTheCurrentSegmentClosesItAndOpensANewOneWithTheSameChains() {
    Layout next = LayoutChanges.withoutNode(fourNodes(), C, 100);

    assertThat(next.segments()).hasSize(2);
    Segment closed = next.segments().get(0);
    Segment open = next.segments().get(1);
    assertThat(closed.start()).isZero();
    assertThat(closed.end()).isEqualTo(100);
    assertThat(open.start()).isEqualTo(100);
    assertThat(open.isOpen()).isTrue();
    List<List<Endpoint>> expected =
        List.of(List.of(A, B), List.of(B, D), List.of(D, A), List.of(D, A, B));
    assertThat(closed.log()).isEqualTo(expected);
    assertThat(open.log()).isEqualTo(expected);
    assertThat(open.stream()).isEqualTo(expected);
    assertThat(next.segmentOf(99)).isSameAs(closed);
    assertThat(next.segmentOf(100)).isSameAs(open);
  }

  @Test
  void aStartAtOrBeforeTheCurrentSegmentChangesItInPlaceAndEverySegmentLosesTheNode() {
    Layout split = LayoutChanges.withoutNode(fourNodes(), C, 100);
    for (long start : new long[] {100, 50, 0}) {
      Layout next = LayoutChanges.withoutNode(split, D, start);
      assertThat(next.segments()).as("start %d", start).hasSize(2);
      assertThat(next.segments().get(0).end()).isEqualTo(100);
      assertThat(next.currentSegment().start()).isEqualTo(100);
      List<List<Endpoint>> expected = List.of(List.of(A, B), List.of(B), List.of(A), List.of(A, B));
      for (Segment s : next.segments()) {
        assertThat(s.log()).isEqualTo(expected);
        assertThat(s.stream()).isEqualTo(expected);
      }
      assertThat(next.removed()).containsExactly(C, D);
    }
  }

  @Test
  void removingTheLastCopyOfAChainIsRefusedNamingTheChain() {
    // A B C with R = 2: [A B] [B C] [C A]; without B: [A] [C] [C A]; then C alone holds chain 1.
    Layout layout = LayoutChanges.initial("c", List.of(A, B, C), 2);
    Layout withoutB = LayoutChanges.withoutNode(layout, B, 10);

    assertThatThrownBy(() -> LayoutChanges.withoutNode(withoutB, C, 20))
        .isInstanceOfSatisfying(
            ChainLostException.class,
            e -> {
              assertThat(e.node()).isEqualTo(C);
              assertThat(e.kind()).isEqualTo(ChainKind.LOG);
              assertThat(e.chainIndex()).isEqualTo(1);
              assertThat(e.segmentStart()).isZero();
            })
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("log chain 1 of the segment starting at 0")
        .hasMessageContaining(C + " holds the only copy");
  }

  @Test
  void aStreamChainLostAloneIsNamedAsAStreamChain() {
    Layout layout =
        new Layout(
            "c",
            1,
            A,
            List.of(
                new Segment(5, -1, List.of(List.of(A, B)), List.of(List.of(A, B), List.of(B)))));
    assertThatThrownBy(() -> LayoutChanges.withoutNode(layout, B, 0))
        .isInstanceOfSatisfying(
            ChainLostException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(ChainKind.STREAM);
              assertThat(e.chainIndex()).isEqualTo(1);
              assertThat(e.segmentStart()).isEqualTo(5);
            })
        .hasMessageContaining("stream chain 1 of the segment starting at 5");
  }

  @Test
  void aSingleReplicaClusterLosesAChainWithAnyNode() {
    Layout layout = LayoutChanges.initial("c", List.of(A, B, C), 1);
    for (Endpoint dead : List.of(A, B, C)) {
      assertThatThrownBy(() -> LayoutChanges.withoutNode(layout, dead, 0))
          .isInstanceOf(ChainLostException.class);
    }
  }

  @Test
  void aNodeNotInTheLayoutCannotBeRemoved() {
    Layout withoutB = LayoutChanges.withoutNode(fourNodes(), B, 0);
    Endpoint stranger = new Endpoint("10.9.9.9", 1);
    assertThatThrownBy(() -> LayoutChanges.withoutNode(withoutB, stranger, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(stranger + " is not in the layout of cluster c at epoch 2.");
    assertThatThrownBy(() -> LayoutChanges.withoutNode(withoutB, B, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("removed at an earlier epoch");
    assertThatThrownBy(() -> LayoutChanges.withoutNode(withoutB, A, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be negative");
  }

  @Test
  void nextEpochAndWithEpochKeepEverythingButTheEpoch() {
    Layout layout = LayoutChanges.withoutNode(fourNodes(), B, 7);
    Layout next = LayoutChanges.nextEpoch(layout);
    assertThat(next.epoch()).isEqualTo(layout.epoch() + 1);
    assertThat(next.withEpoch(layout.epoch())).isEqualTo(layout);
    assertThat(next.replication()).isEqualTo(3);
    assertThat(next.removed()).containsExactly(B);
  }

  @Test
  void aChangedLayoutSurvivesAJsonRoundTripAndAStaticOneReadsAsBefore() {
    Layout layout = LayoutChanges.withoutNode(LayoutChanges.withoutNode(fourNodes(), B, 5), A, 9);
    String json = layout.toJson();
    assertThat(json)
        .contains("\"replication\":3")
        .contains("\"removed\":[\"10.0.0.2:9000\",\"10.0.0.1:9000\"]");
    assertThat(Layout.fromJson(json)).isEqualTo(layout);

    Layout old = Layout.fromJson(LayoutJsonTest.EXAMPLE);
    assertThat(old.replication()).isZero();
    assertThat(old.removed()).isEmpty();
    assertThat(old.toJson()).doesNotContain("replication").doesNotContain("removed");
    assertThat(old)
        .isEqualTo(new Layout(old.clusterId(), old.epoch(), old.sequencer(), old.segments()));
  }
}
