package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.layout.ChainPlan.Role;
import io.vcorfu.layout.ChainPlan.Visit;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlacementTest {
  // The paper's Figure 3: log chains [10.0.1.1], [10.0.1.2]; stream chains [10.0.2.1], [10.0.2.2].
  static final Endpoint L0 = new Endpoint("10.0.1.1", 9000);
  static final Endpoint L1 = new Endpoint("10.0.1.2", 9000);
  static final Endpoint S0 = new Endpoint("10.0.2.1", 9000);
  static final Endpoint S1 = new Endpoint("10.0.2.2", 9000);
  static final Layout FIG3 =
      new Layout(
          "fig3",
          1,
          new Endpoint("10.0.0.1", 9000),
          List.of(
              new Segment(
                  0, -1, List.of(List.of(L0), List.of(L1)), List.of(List.of(S0), List.of(S1)))));

  /** A stream whose placement hash is congruent to {@code residue} mod {@code modulus}. */
  static StreamId streamWithHash(int residue, int modulus, String prefix) {
    for (int i = 0; ; i++) {
      StreamId s = StreamId.of(prefix + i);
      if (s.placementHash() % modulus == residue) {
        return s;
      }
    }
  }

  @Test
  void figure3UpdateToStream0AtAddress1GoesToLog1AndStream0() {
    StreamId stream0 = streamWithHash(0, 2, "a");
    assertThat(FIG3.logChain(1)).containsExactly(L1);
    assertThat(FIG3.streamChain(stream0)).containsExactly(S0);
    assertThat(FIG3.chainPlan(1, List.of(stream0)).visits())
        .extracting(Visit::endpoint)
        .containsExactly(L1, S0);
  }

  @Test
  void figure3UpdateToStream1AtAddress3GoesToLog1AndStream1() {
    StreamId stream1 = streamWithHash(1, 2, "b");
    assertThat(FIG3.logChain(3)).containsExactly(L1);
    assertThat(FIG3.streamChain(stream1)).containsExactly(S1);
    assertThat(FIG3.logChain(4)).containsExactly(L0);
  }

  @Test
  void streamPlacementIsPlacementHashModChainCount() {
    for (int i = 0; i < 200; i++) {
      StreamId s = StreamId.of("s" + i);
      assertThat(FIG3.streamChainIndex(s)).isEqualTo(s.placementHash() % 2);
    }
  }

  @Test
  void logChainUsesTheSegmentHoldingTheAddress() {
    Endpoint a = new Endpoint("a", 1);
    Endpoint b = new Endpoint("b", 1);
    Endpoint c = new Endpoint("c", 1);
    Layout layout =
        new Layout(
            "c",
            3,
            a,
            List.of(
                new Segment(10, 20, List.of(List.of(a)), List.of(List.of(a))),
                new Segment(20, -1, List.of(List.of(b), List.of(c)), List.of(List.of(c)))));
    assertThat(layout.logChain(19)).containsExactly(a);
    assertThat(layout.logChain(20)).containsExactly(b);
    assertThat(layout.logChain(21)).containsExactly(c);
    assertThatThrownBy(() -> layout.logChain(5))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("not covered by any segment");
    assertThat(layout.allServers()).containsExactly(a, b, c);
  }

  @Test
  void chainPlanVisitsLogChainThenStreamChainsByIndexGroupingStreamsPerReplica() {
    Endpoint l1 = new Endpoint("l", 1);
    Endpoint l2 = new Endpoint("l", 2);
    Endpoint r0a = new Endpoint("r0", 1);
    Endpoint r0b = new Endpoint("r0", 2);
    Endpoint r1a = new Endpoint("r1", 1);
    Endpoint r2a = new Endpoint("r2", 1);
    Layout layout =
        new Layout(
            "c",
            1,
            l1,
            List.of(
                new Segment(
                    0,
                    -1,
                    List.of(List.of(l1, l2)),
                    List.of(List.of(r0a, r0b), List.of(r1a), List.of(r2a)))));
    StreamId onTwoFirst = streamWithHash(2, 3, "x");
    StreamId onZeroA = streamWithHash(0, 3, "y");
    StreamId onZeroB = streamWithHash(0, 3, "z");
    List<StreamId> entry = List.of(onTwoFirst, onZeroA, onZeroB);

    ChainPlan plan = layout.chainPlan(42, entry);

    assertThat(plan.visits())
        .containsExactly(
            new Visit(Role.LOG, l1, entry),
            new Visit(Role.LOG, l2, entry),
            new Visit(Role.STREAM, r0a, List.of(onZeroA, onZeroB)),
            new Visit(Role.STREAM, r0b, List.of(onZeroA, onZeroB)),
            new Visit(Role.STREAM, r2a, List.of(onTwoFirst)));
    assertThat(plan.last()).isEqualTo(new Visit(Role.STREAM, r2a, List.of(onTwoFirst)));
    assertThat(plan.beforeLast()).hasSize(4);
  }

  @Test
  void theDecidingChainIsVisitedLastEvenWhereItsReplicasWereVisitedForOtherStreams() {
    Endpoint log = new Endpoint("l", 1);
    Endpoint shared = new Endpoint("s", 1);
    Endpoint other = new Endpoint("o", 1);
    Layout layout =
        new Layout(
            "c",
            1,
            log,
            List.of(
                new Segment(
                    0,
                    -1,
                    List.of(List.of(log)),
                    List.of(List.of(shared), List.of(other, shared)))));
    StreamId on0 = streamWithHash(0, 2, "p");
    StreamId on1 = streamWithHash(1, 2, "q");

    ChainPlan plan = layout.chainPlan(0, List.of(on1, on0));

    // on0's chain [shared] first; then the deciding chain, on1's [other, shared], head first.
    assertThat(plan.visits())
        .containsExactly(
            new Visit(Role.LOG, log, List.of(on1, on0)),
            new Visit(Role.STREAM, shared, List.of(on0)),
            new Visit(Role.STREAM, other, List.of(on1)),
            new Visit(Role.STREAM, shared, List.of(on1)));
  }

  @Test
  void entryWithoutStreamsIsDecidedByTheLastLogReplica() {
    ChainPlan plan = FIG3.chainPlan(6, List.of());
    assertThat(plan.visits()).containsExactly(new Visit(Role.LOG, L0, List.of()));
    assertThat(plan.last().role()).isEqualTo(Role.LOG);
  }

  @Test
  void duplicateStreamsInAnEntryAreRejected() {
    StreamId s = StreamId.of("dup");
    assertThatThrownBy(() -> FIG3.chainPlan(0, List.of(s, s)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than once");
  }
}
