package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.Endpoint;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which layouts let the sequencer node take an append whole and write every copy itself, and over
 * which addresses its own log replica holds every entry that can commit.
 */
class SequencerDrivesAppendsTest {
  private static final Endpoint A = Endpoint.parse("a:9000");
  private static final Endpoint B = Endpoint.parse("b:9000");
  private static final Endpoint C = Endpoint.parse("c:9000");

  private static Layout layout(Endpoint sequencer, Segment... segments) {
    return new Layout("c1", 1, sequencer, List.of(segments));
  }

  @Test
  void aSequencerInEveryLogChainWithCopiesElsewhereDrives() {
    Layout threeNodes =
        layout(A, new Segment(0, -1, List.of(List.of(A, B, C)), List.of(List.of(B, C, A))));
    assertThat(threeNodes.sequencerDrivesAppends()).isTrue();
    assertThat(threeNodes.sequencerHoldsLog(0, 1_000)).isTrue();
  }

  @Test
  void aOneNodeLayoutWritesAloneInsteadOfDriving() {
    Layout one = Layout.singleNode(A, "c1");
    assertThat(one.sequencerHostsEveryChain()).isTrue();
    assertThat(one.sequencerDrivesAppends()).isFalse();
  }

  @Test
  void aSequencerMissingFromOneLogChainDoesNotDrive() {
    Layout striped =
        layout(
            A,
            new Segment(0, -1, List.of(List.of(A, B), List.of(B, C)), List.of(List.of(A, B, C))));
    assertThat(striped.sequencerDrivesAppends()).isFalse();
    // Address 0 is on chain 0 (with A), address 1 on chain 1 (without).
    assertThat(striped.sequencerHoldsLog(0, 0)).isTrue();
    assertThat(striped.sequencerHoldsLog(0, 1)).isFalse();
    assertThat(striped.sequencerHoldsLog(2, 2)).isTrue();
  }

  @Test
  void addressesOfASegmentWithoutTheSequencerAreNotItsToSearch() {
    Layout moved =
        layout(
            A,
            new Segment(0, 100, List.of(List.of(B, C)), List.of(List.of(B, C))),
            new Segment(100, -1, List.of(List.of(A, B, C)), List.of(List.of(A, B, C))));
    assertThat(moved.sequencerDrivesAppends()).isTrue();
    assertThat(moved.sequencerHoldsLog(100, 5_000)).isTrue();
    assertThat(moved.sequencerHoldsLog(99, 5_000)).isFalse();
    assertThat(moved.sequencerHoldsLog(0, 10)).isFalse();
    assertThat(moved.sequencerHoldsLog(7, 6)).as("an empty range").isTrue();
  }

  @Test
  void addressesBelowTheFirstSegmentCannotBeSearched() {
    Layout trimmed =
        layout(A, new Segment(50, -1, List.of(List.of(A, B, C)), List.of(List.of(A, B, C))));
    assertThat(trimmed.sequencerHoldsLog(50, 60)).isTrue();
    assertThat(trimmed.sequencerHoldsLog(10, 60)).isFalse();
  }
}
