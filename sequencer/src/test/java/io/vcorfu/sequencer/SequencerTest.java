package io.vcorfu.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.protocol.proto.ConflictKey;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.protocol.proto.TailResponse;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.protocol.proto.TxResolution;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SequencerTest {
  static final StreamId A = StreamId.of("a");
  static final StreamId B = StreamId.of("b");
  static final StreamId C = StreamId.of("c");

  Sequencer seq;

  @BeforeEach
  void fresh() {
    seq = new Sequencer(1000);
    seq.bootstrap(-1, Map.of());
  }

  static TokenRequest req(StreamId... streams) {
    TokenRequest.Builder b = TokenRequest.newBuilder();
    Arrays.stream(streams).forEach(s -> b.addStreams(s.toMsg()));
    return b.build();
  }

  static ConflictKey whole(StreamId s) {
    return ConflictKey.newBuilder().setStream(s.toMsg()).build();
  }

  static ConflictKey key(StreamId s, String k) {
    return ConflictKey.newBuilder().setStream(s.toMsg()).setKey(ByteString.copyFromUtf8(k)).build();
  }

  static TokenRequest tx(
      long snapshot, List<ConflictKey> reads, List<ConflictKey> writes, StreamId... streams) {
    return txAt(0, snapshot, reads, writes, streams);
  }

  /** A transaction whose snapshot was taken at {@code epoch}. */
  static TokenRequest txAt(
      long epoch,
      long snapshot,
      List<ConflictKey> reads,
      List<ConflictKey> writes,
      StreamId... streams) {
    return req(streams).toBuilder()
        .setTx(
            TxResolution.newBuilder()
                .setSnapshot(snapshot)
                .setSnapshotEpoch(epoch)
                .addAllReadSet(reads)
                .addAllWriteSet(writes))
        .build();
  }

  long append(StreamId... streams) {
    return seq.issue(req(streams)).getTokens(0).getGlobalAddress();
  }

  static StreamSlot slot(Token t, int i) {
    return t.getSlots(i);
  }

  @Test
  void unbootstrappedSequencerRefusesToServe() {
    Sequencer cold = new Sequencer(10);
    assertThatThrownBy(() -> cold.issue(req(A))).isInstanceOf(NotServingException.class);
    assertThatThrownBy(() -> cold.tails(TailRequest.getDefaultInstance()))
        .isInstanceOf(NotServingException.class);
  }

  @Test
  void tokensAreDenseGloballyAndPerStream() {
    long[] expectedStream = new long[2];
    for (int i = 0; i < 20; i++) {
      StreamId s = i % 3 == 0 ? B : A;
      Token t = seq.issue(req(s)).getTokens(0);
      assertThat(t.getGlobalAddress()).isEqualTo(i);
      int idx = s == A ? 0 : 1;
      assertThat(slot(t, 0).getStreamAddress()).isEqualTo(expectedStream[idx]++);
    }
    assertThat(seq.globalTail()).isEqualTo(19);
  }

  @Test
  void multiStreamTokenHasOneSlotPerStreamInRequestOrder() {
    long a0 = append(A);
    Token t = seq.issue(req(C, A, B)).getTokens(0);
    assertThat(t.getGlobalAddress()).isEqualTo(1);
    assertThat(t.getSlotsList())
        .extracting(s -> StreamId.fromMsg(s.getStream()), StreamSlot::getStreamAddress)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(C, 0L),
            org.assertj.core.groups.Tuple.tuple(A, 1L),
            org.assertj.core.groups.Tuple.tuple(B, 0L));
    assertThat(t.getSlotsList())
        .as("each slot points back at the stream's previous token")
        .extracting(StreamSlot::getBackpointer)
        .containsExactly(-1L, a0, -1L);
  }

  @Test
  void tailsReportEachStreamsLastGlobalAddress() {
    long a0 = append(A);
    append(B);
    long ab = append(A, B);
    append(C);
    assertThat(lastGlobal(A)).isEqualTo(ab);
    assertThat(lastGlobal(B)).isEqualTo(ab);
    assertThat(a0).isZero();
    assertThat(lastGlobal(StreamId.of("new"))).isEqualTo(-1);
  }

  private long lastGlobal(StreamId stream) {
    return seq.tails(TailRequest.newBuilder().addStreams(stream.toMsg()).build())
        .getStreamLastGlobal(0);
  }

  @Test
  void countIssuesConsecutiveTokensChainedToEachOther() {
    append(A);
    TokenResponse r = seq.issue(req(A).toBuilder().setCount(3).build());
    assertThat(r.getTokensList()).extracting(Token::getGlobalAddress).containsExactly(1L, 2L, 3L);
    assertThat(r.getTokensList())
        .extracting(t -> t.getSlots(0).getStreamAddress())
        .containsExactly(1L, 2L, 3L);
    assertThat(lastGlobal(A)).isEqualTo(3);
    assertThat(seq.issue(req(A).toBuilder().setCount(0).build()).getTokensCount()).isEqualTo(1);
  }

  @Test
  void tokenWithoutStreamsTakesOnlyAGlobalAddress() {
    append(A);
    Token t = seq.issue(req()).getTokens(0);
    assertThat(t.getGlobalAddress()).isEqualTo(1);
    assertThat(t.getSlotsCount()).isZero();
  }

  @Test
  void duplicateStreamsAndHugeCountsAreBadRequests() {
    assertThatThrownBy(() -> seq.issue(req(A, B, A)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("more than once");
    assertThatThrownBy(
            () ->
                seq.issue(
                    req(A).toBuilder().setCount(Sequencer.MAX_TOKENS_PER_REQUEST + 1).build()))
        .isInstanceOf(BadRequestException.class);
    assertThat(seq.globalTail()).isEqualTo(-1);
  }

  @Test
  void tailsReportLastIssuedAddresses() {
    append(A);
    append(A, B);
    append(C);
    TailResponse r =
        seq.tails(
            TailRequest.newBuilder()
                .addStreams(A.toMsg())
                .addStreams(B.toMsg())
                .addStreams(StreamId.of("none").toMsg())
                .build());
    assertThat(r.getGlobalTail()).isEqualTo(2);
    assertThat(r.getStreamTailsList()).containsExactly(1L, 0L, -1L);
    assertThat(r.getStreamLastGlobalList()).containsExactly(1L, 1L, -1L);
  }

  @Test
  void wholeObjectConflictNamesTheStreamAndTheWriteAddress() {
    long snapshot = append(A);
    long later = append(B);
    assertThatThrownBy(() -> seq.issue(tx(snapshot, List.of(whole(A), whole(B)), List.of(), A)))
        .isInstanceOfSatisfying(
            TokenRefusedException.class,
            e -> {
              assertThat(e.stream()).isEqualTo(B);
              assertThat(e.conflictAddress()).isEqualTo(later);
              assertThat(e.snapshotTooOld()).isFalse();
            });
  }

  @Test
  void refusalIssuesNothingAndChangesNoState() {
    long snapshot = append(A);
    append(A);
    TailRequest tailsOfA = TailRequest.newBuilder().addStreams(A.toMsg()).build();
    TailResponse before = seq.tails(tailsOfA);
    assertThatThrownBy(() -> seq.issue(tx(snapshot, List.of(whole(A)), List.of(whole(A)), A)))
        .isInstanceOf(TokenRefusedException.class);
    assertThat(seq.tails(tailsOfA)).isEqualTo(before);
    assertThat(append(B)).isEqualTo(2);
  }

  @Test
  void writesBeforeTheSnapshotDoNotConflict() {
    append(A);
    long snapshot = append(B);
    TokenResponse r = seq.issue(tx(snapshot, List.of(whole(A), whole(B)), List.of(whole(A)), A));
    assertThat(r.getTokens(0).getGlobalAddress()).isEqualTo(2);
    assertThat(r.getTokens(0).getSlots(0).getStreamAddress()).isEqualTo(1);
  }

  @Test
  void transactionWritesAreSeenByLaterTransactions() {
    long snapshot = append(A);
    long committed =
        seq.issue(tx(snapshot, List.of(whole(A)), List.of(whole(A)), A))
            .getTokens(0)
            .getGlobalAddress();
    assertThatThrownBy(() -> seq.issue(tx(snapshot, List.of(whole(A)), List.of(), B)))
        .isInstanceOfSatisfying(
            TokenRefusedException.class, e -> assertThat(e.conflictAddress()).isEqualTo(committed));
  }

  @Test
  void disjointKeysBothCommit() {
    long snapshot = append(A);
    seq.issue(tx(snapshot, List.of(key(A, "x")), List.of(key(A, "x")), A));
    TokenResponse second = seq.issue(tx(snapshot, List.of(key(A, "y")), List.of(key(A, "y")), A));
    assertThat(second.getTokens(0).getGlobalAddress()).isEqualTo(2);
  }

  @Test
  void sameKeyAborts() {
    long snapshot = append(A);
    long first =
        seq.issue(tx(snapshot, List.of(key(A, "x")), List.of(key(A, "x")), A))
            .getTokens(0)
            .getGlobalAddress();
    assertThatThrownBy(() -> seq.issue(tx(snapshot, List.of(key(A, "x")), List.of(key(A, "x")), A)))
        .isInstanceOfSatisfying(
            TokenRefusedException.class,
            e -> {
              assertThat(e.stream()).isEqualTo(A);
              assertThat(e.conflictKey())
                  .isEqualTo("x".getBytes(java.nio.charset.StandardCharsets.UTF_8));
              assertThat(e.conflictAddress()).isEqualTo(first);
            });
  }

  @Test
  void wholeObjectWriteAbortsKeyedRead() {
    long snapshot = append(A);
    long plain = append(A);
    assertThatThrownBy(() -> seq.issue(tx(snapshot, List.of(key(A, "x")), List.of(key(A, "x")), A)))
        .isInstanceOfSatisfying(
            TokenRefusedException.class, e -> assertThat(e.conflictAddress()).isEqualTo(plain));
  }

  @Test
  void keyedWriteAbortsWholeObjectRead() {
    long snapshot = append(A);
    seq.issue(tx(snapshot, List.of(), List.of(key(A, "x")), A));
    assertThatThrownBy(() -> seq.issue(tx(snapshot, List.of(whole(A)), List.of(), B)))
        .isInstanceOf(TokenRefusedException.class);
  }

  @Test
  void tokenStreamMissingFromTheWriteSetCountsAsWholeObjectWrite() {
    long snapshot = append(A);
    seq.issue(tx(snapshot, List.of(), List.of(key(B, "k")), A, B));
    assertThatThrownBy(() -> seq.issue(tx(snapshot, List.of(key(A, "other")), List.of(), C)))
        .isInstanceOf(TokenRefusedException.class);
    assertThat(seq.issue(tx(snapshot, List.of(key(B, "other")), List.of(), C)).getTokensCount())
        .isEqualTo(1);
  }

  @Test
  void evictedKeyAbortsConservativelyAfterItsWatermark() {
    Sequencer small = new Sequencer(2);
    small.bootstrap(-1, Map.of());
    long snapshot = small.issue(req(B)).getTokens(0).getGlobalAddress();
    small.issue(tx(snapshot, List.of(), List.of(key(A, "k1")), A));
    small.issue(tx(snapshot, List.of(), List.of(key(A, "k2")), A));
    small.issue(tx(snapshot, List.of(), List.of(key(A, "k3")), A)); // evicts k1 (written at 1)
    assertThatThrownBy(
            () -> small.issue(tx(snapshot, List.of(key(A, "never-written")), List.of(), C)))
        .isInstanceOfSatisfying(
            TokenRefusedException.class,
            e -> {
              assertThat(e.snapshotTooOld()).isTrue();
              assertThat(e.conflictAddress()).isEqualTo(-1);
              assertThat(e.stream()).isEqualTo(A);
            });
    long after = small.globalTail();
    assertThat(
            small.issue(tx(after, List.of(key(A, "never-written")), List.of(), C)).getTokensCount())
        .isEqualTo(1);
  }

  @Test
  void snapshotBeforeTheBootstrapPointAbortsConservatively() {
    seq.bootstrap(3, 100, Map.of(A, new StreamTail(9, 99)));
    assertThatThrownBy(() -> seq.issue(txAt(3, 50, List.of(whole(C)), List.of(), C)))
        .isInstanceOfSatisfying(
            TokenRefusedException.class,
            e -> {
              assertThat(e.snapshotTooOld()).isTrue();
              assertThat(e.conflictAddress()).isEqualTo(-1);
            });
    assertThat(lastGlobal(A)).isEqualTo(99);
    TokenResponse ok = seq.issue(txAt(3, 100, List.of(whole(A)), List.of(), A));
    assertThat(ok.getEpoch()).isEqualTo(3);
    assertThat(ok.getTokens(0).getGlobalAddress()).isEqualTo(101);
    assertThat(ok.getTokens(0).getSlots(0).getStreamAddress()).isEqualTo(10);
    assertThat(lastGlobal(A)).isEqualTo(101);
  }

  @Test
  void snapshotTakenBeforeARestartAbortsSayingTheSequencerRestarted() {
    seq.bootstrap(4, 100, Map.of(A, new StreamTail(9, 99)));
    // Even a snapshot above the bootstrap point: tokens of the earlier epoch may have been fenced
    // and their addresses issued again.
    assertThatThrownBy(() -> seq.issue(txAt(3, 120, List.of(whole(A)), List.of(), A)))
        .isInstanceOfSatisfying(
            TokenRefusedException.class,
            e -> {
              assertThat(e.refusal()).isEqualTo(TokenRefusedException.Cause.SEQUENCER_RESTARTED);
              assertThat(e.stream()).isEqualTo(A);
              assertThat(e.getMessage()).contains("a new epoch began since the snapshot was taken");
            });
    assertThat(seq.globalTail()).as("a refusal issues nothing").isEqualTo(100);
    assertThat(
            seq.issue(txAt(3, 120, List.of(), List.of(key(A, "k")), A))
                .getTokens(0)
                .getGlobalAddress())
        .as("a blind write reads nothing, so an old snapshot does not matter")
        .isEqualTo(101);
    assertThat(seq.issue(txAt(4, 101, List.of(whole(A)), List.of(), A)).getEpoch()).isEqualTo(4);
  }

  @Test
  void bootstrapTakesTheHighestKnownAddressAsGlobalTail() {
    seq.bootstrap(5, Map.of(A, new StreamTail(2, 8), B, new StreamTail(0, 3)));
    assertThat(seq.globalTail()).isEqualTo(8);
    assertThat(seq.bootstrapPoint()).isEqualTo(8);
    TailResponse r =
        seq.tails(TailRequest.newBuilder().addStreams(A.toMsg()).addStreams(B.toMsg()).build());
    assertThat(r.getStreamTailsList()).containsExactly(2L, 0L);
    assertThat(r.getStreamLastGlobalList()).containsExactly(8L, 3L);
    assertThat(append(B)).isEqualTo(9);
  }
}
