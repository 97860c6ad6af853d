package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Stream chains with no replica (degraded mode) and chains taken up again: a failure may empty a
 * stream chain but never a log chain; chain plans leave an empty chain out, and a chain taken up at
 * epoch {@code e} out of the plans of entries of earlier epochs; a node takes up every empty chain
 * at once.
 */
class DegradedLayoutTest {
  static final Endpoint L1 = new Endpoint("10.0.0.1", 9000);
  static final Endpoint L2 = new Endpoint("10.0.0.2", 9000);
  static final Endpoint S1 = new Endpoint("10.0.0.3", 9000);
  static final Endpoint S2 = new Endpoint("10.0.0.4", 9000);
  static final Endpoint X = new Endpoint("10.0.0.9", 9000);

  /** Log chain [L1, L2], stream chains [S1] and [S2], R = 2. */
  static Layout separateRoles() {
    return new Layout(
        "c",
        2,
        L1,
        List.of(
            new Segment(
                0, Segment.OPEN, List.of(List.of(L1, L2)), List.of(List.of(S1), List.of(S2)))),
        2,
        List.of());
  }

  /** A stream placed on stream chain {@code index} of {@code layout}. */
  static StreamId streamOn(Layout layout, int index) {
    for (int i = 0; ; i++) {
      StreamId s = StreamId.of("s" + i);
      if (layout.streamChainIndex(s) == index) {
        return s;
      }
    }
  }

  @Test
  void aFailedStreamReplicaLeavesItsChainEmptyAndPlansLeaveTheChainOut() {
    Layout before = separateRoles();
    StreamId a = streamOn(before, 0);
    StreamId b = streamOn(before, 1);

    Layout degraded = LayoutChanges.withoutNode(before, S1, 10);

    assertThat(degraded.currentSegment().stream()).containsExactly(List.of(), List.of(S2));
    assertThat(LayoutChanges.emptyStreamChains(degraded)).containsExactly(0);
    assertThat(LayoutChanges.underReplicated(degraded)).contains("stream 0");
    assertThat(Layout.fromJson(degraded.toJson())).isEqualTo(degraded);
    ChainPlan onlyA = ChainPlan.of(degraded, 12, List.of(a), degraded.epoch());
    assertThat(onlyA.visits())
        .extracting(ChainPlan.Visit::endpoint)
        .as("the log decides an entry of a stream with no replica")
        .containsExactly(L1, L2);
    ChainPlan both = ChainPlan.of(degraded, 12, List.of(a, b), degraded.epoch());
    assertThat(both.last().endpoint()).isEqualTo(S2);
    assertThat(both.last().streams()).containsExactly(b);
  }

  @Test
  void aLogChainIsNeverLeftEmptyNorAStaticLayoutsStreamChain() {
    Layout before = separateRoles();
    Layout oneLog = LayoutChanges.withoutNode(before, L1, 10);
    assertThatThrownBy(() -> LayoutChanges.withoutNode(oneLog, L2, 20))
        .isInstanceOf(ChainLostException.class);
    String staticLayout =
        """
        {"clusterId": "c", "epoch": 1, "sequencer": "10.0.0.1:9000",
         "segments": [{"start": 0, "end": -1, "log": [["10.0.0.1:9000"]], "stream": [[]]}]}
        """;
    assertThatThrownBy(() -> Layout.fromJson(staticLayout))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("empty stream chain");
  }

  @Test
  void aNodeTakesUpEveryEmptyChainAndDecidesOnlyEntriesOfItsEpochOn() {
    Layout degraded = LayoutChanges.withoutNode(separateRoles(), S1, 10);
    StreamId a = streamOn(degraded, 0);

    Layout takenUp = LayoutChanges.withTakeover(degraded, X, 30);

    long e = takenUp.epoch();
    assertThat(takenUp.currentSegment().stream()).containsExactly(List.of(X), List.of(S2));
    assertThat(takenUp.streamChainSince(0)).isEqualTo(e);
    assertThat(takenUp.streamChainSince(1)).isZero();
    assertThat(takenUp.isRebuilding(X)).as("it decides from the start").isFalse();
    assertThat(Layout.fromJson(takenUp.toJson())).isEqualTo(takenUp);
    assertThat(ChainPlan.of(takenUp, 40, List.of(a), e).last().endpoint()).isEqualTo(X);
    assertThat(ChainPlan.of(takenUp, 20, List.of(a), e - 1).last().endpoint())
        .as("an entry of an earlier epoch stays decided by the log")
        .isEqualTo(L2);
    assertThatThrownBy(() -> LayoutChanges.withTakeover(takenUp, S1, 50))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("No stream chain");

    // Changes that keep the chain keep its epoch; losing its replica again drops it.
    Layout later = LayoutChanges.withoutNode(takenUp, L1, 50);
    assertThat(later.streamChainSince(0)).isEqualTo(e);
    Layout lostAgain = LayoutChanges.withoutNode(later, X, 60);
    assertThat(lostAgain.streamSince()).isEmpty();
    assertThat(LayoutChanges.emptyStreamChains(lostAgain)).containsExactly(0);
  }

  @Test
  void aFirstLayoutMayPutTheStreamReplicasOnNodesOfTheirOwn() {
    Layout one = LayoutChanges.initial("c", List.of(L1), List.of(S1), 1, 1);
    assertThat(one.sequencer()).isEqualTo(L1);
    assertThat(one.currentSegment().log()).containsExactly(List.of(L1));
    assertThat(one.currentSegment().stream()).containsExactly(List.of(S1));

    Layout two = LayoutChanges.initial("c", List.of(L1, L2), List.of(S1, S2), 2, 4);
    assertThat(two.currentSegment().log()).containsExactly(List.of(L1, L2), List.of(L2, L1));
    assertThat(two.currentSegment().stream())
        .hasSize(4)
        .allSatisfy(chain -> assertThat(chain).containsExactlyInAnyOrder(S1, S2));
    assertThat(Layout.fromJson(two.toJson())).isEqualTo(two);

    assertThatThrownBy(() -> LayoutChanges.initial("c", List.of(L1), List.of(L1), 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("both the log nodes and the stream nodes");
    assertThatThrownBy(() -> LayoutChanges.initial("c", List.of(L1, L2), List.of(S1), 2, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 1 and the number of nodes (1)");
  }

  @Test
  void aStreamSinceMustNameATakenUpChainAtAnEpochNotAfterTheLayouts() {
    String base =
        """
        {"clusterId": "c", "epoch": 5, "sequencer": "10.0.0.1:9000", "replication": 2,
         "segments": [{"start": 0, "end": -1, "log": [["10.0.0.1:9000"]],
                       "stream": [["10.0.0.3:9000"], []]}],
         "streamSince": %s}
        """;
    assertThat(Layout.fromJson(base.formatted("{\"0\": 5}")).streamChainSince(0)).isEqualTo(5);
    assertThatThrownBy(() -> Layout.fromJson(base.formatted("{\"1\": 4}")))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("the chain is empty");
    assertThatThrownBy(() -> Layout.fromJson(base.formatted("{\"0\": 6}")))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("from 1 to 5");
    assertThatThrownBy(() -> Layout.fromJson(base.formatted("{\"7\": 1}")))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("stream chains 0 to 1");
  }
}
