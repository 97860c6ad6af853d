package io.vcorfu.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadLeaseRequest;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sequencer's lease table on a clock the test moves. */
class ReadLeasesTest {
  private static final StreamId A = StreamId.of("client-a");
  private static final StreamId B = StreamId.of("client-b");
  private static final StreamId W = StreamId.of("writer");
  private static final StreamId S = StreamId.of("s");
  private static final int LEASE_MS = 1_000;

  @TempDir Path tmp;
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final ReadLeases leases = new ReadLeases(null, now::get);

  @AfterEach
  void close() {
    leases.close();
  }

  private static ReadLeaseRequest ask(long applied) {
    return ReadLeaseRequest.newBuilder().setLeaseMs(LEASE_MS).setApplied(applied).build();
  }

  private static TokenResponse token(long global, long streamAddress) {
    return token(global, S, streamAddress);
  }

  private void advanceMillis(long ms) {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  @Test
  void aNewLeaseIsAnsweredAtOnceWithItsIncarnationThenParksUntilATokenIsIssued() throws Exception {
    ReadLeaseResponse first = leases.lease(A, ask(-1)).get(1, TimeUnit.SECONDS);
    assertThat(first.getIncarnation()).isNotZero();
    assertThat(first.getLeaseMs()).isEqualTo(LEASE_MS);

    CompletableFuture<ReadLeaseResponse> parked = leases.lease(A, ask(-1));
    assertThat(parked).isNotDone();
    leases.issued(token(7, 3));
    ReadLeaseResponse push = parked.get(1, TimeUnit.SECONDS);
    assertThat(push.getIncarnation())
        .as("the same lease, renewed")
        .isEqualTo(first.getIncarnation());
    assertThat(push.getStable()).as("no other holder: every token is stable").isEqualTo(7);
    assertThat(push.getGlobalTail()).isEqualTo(7);
    assertThat(push.getStreamsList())
        .as("the stream by id alone: the token named it, the push does not")
        .containsExactly(S.toIdOnlyMsg());
    assertThat(S.toMsg().getName()).isEqualTo("s");
    assertThat(push.getStreamTails(0)).isEqualTo(3);
    assertThat(push.getStreamLastGlobal(0)).isEqualTo(7);
  }

  @Test
  void aRevealingAnswerWaitsForEveryOtherHolderToApplyThePush() throws Exception {
    leases.lease(A, ask(-1)).join();
    leases.lease(B, ask(-1)).join();
    CompletableFuture<ReadLeaseResponse> parkedA = leases.lease(A, ask(-1));
    CompletableFuture<ReadLeaseResponse> parkedB = leases.lease(B, ask(-1));
    leases.issued(token(5, 0));
    assertThat(parkedA).isDone();
    assertThat(parkedB).isDone();

    CompletableFuture<Void> toWriter = leases.visibleTo(W, 5);
    CompletableFuture<Void> toA = leases.visibleTo(A, 5);
    assertThat(toWriter).isNotDone();
    assertThat(toA).isNotDone();
    leases.lease(A, ask(5));
    assertThat(toWriter).as("B has not applied it yet").isNotDone();
    assertThat(toA).as("B has not applied it yet").isNotDone();
    leases.lease(B, ask(5));
    assertThat(toWriter).isDone();
    assertThat(toA).isDone();
    assertThat(leases.visibleTo(W, 5)).isDone();
  }

  @Test
  void anAnswerToAHolderItselfCarriesEveryTokenItHasNotAcknowledged() {
    StreamId t = StreamId.of("t");
    leases.lease(A, ask(-1)).join();
    CompletableFuture<ReadLeaseResponse> parked = leases.lease(A, ask(-1));
    leases.issued(token(1, 0));
    assertThat(parked).as("pushed, but not acknowledged yet").isDone();
    leases.issued(
        TokenResponse.newBuilder()
            .addTokens(
                Token.newBuilder()
                    .setGlobalAddress(2)
                    .addSlots(StreamSlot.newBuilder().setStream(t.toMsg()).setStreamAddress(0)))
            .build());
    // Not waited for, since the answer carries what it lacks: the pushed token and the pending one.
    assertThat(leases.visibleTo(A, 2)).isDone();
    assertThat(leases.visibleTo(W, 2)).isNotDone();
    ReadLeaseResponse carried = leases.pushFor(A, 2);
    assertThat(carried.getGlobalTail()).isEqualTo(2);
    assertThat(carried.getStreamsList())
        .containsExactlyInAnyOrder(S.toIdOnlyMsg(), t.toIdOnlyMsg());
    assertThat(leases.pushFor(W, 2)).as("not a holder").isNull();

    leases.lease(A, ask(2));
    assertThat(leases.pushFor(A, 2).getStreamsCount()).as("acknowledged").isZero();
    assertThat(leases.pushFor(A, 2).getGlobalTail()).isEqualTo(-1);
    assertThat(leases.visibleTo(W, 2)).isDone();
  }

  private static TokenResponse token(long global, StreamId stream, long streamAddress) {
    return TokenResponse.newBuilder()
        .addTokens(
            Token.newBuilder()
                .setGlobalAddress(global)
                .addSlots(
                    StreamSlot.newBuilder()
                        .setStream(stream.toMsg())
                        .setStreamAddress(streamAddress)))
        .build();
  }

  /** A's lease taken and its next request parked. */
  private CompletableFuture<ReadLeaseResponse> parkedA() {
    leases.lease(A, ask(-1)).join();
    return leases.lease(A, ask(-1));
  }

  private void issuedTo(StreamId requester, TokenResponse r) {
    leases.issued(
        r.getTokens(r.getTokensCount() - 1).getGlobalAddress(), r::getTokensList, requester);
  }

  /**
   * A lone holder's own tokens reach it with its own answers, not with a push of their own; a
   * response to another client that waits for its acknowledgement asks for it at once, and still
   * waits for it.
   */
  @Test
  void aLoneHoldersOwnTokensAreNotPushedUntilSomeoneWaitsForItsAcknowledgement() {
    CompletableFuture<ReadLeaseResponse> parked = parkedA();
    issuedTo(A, token(1, 0));
    assertThat(parked).as("its own token: its write's answer carries it").isNotDone();
    assertThat(leases.visibleTo(A, 1)).as("its own answer is not held").isDone();
    assertThat(leases.pushFor(A, 1).getGlobalTail()).isEqualTo(1);

    CompletableFuture<Void> toWriter = leases.visibleTo(W, 1);
    assertThat(toWriter).as("A has not acknowledged it").isNotDone();
    assertThat(parked).as("asked for its acknowledgement").isDone();
    assertThat(parked.join().getGlobalTail()).isEqualTo(1);
    leases.lease(A, ask(1));
    assertThat(toWriter).isDone();
  }

  @Test
  void tokensOfOtherClientsAndTokensOfAHolderThatIsNotAloneArePushedAtOnce() {
    CompletableFuture<ReadLeaseResponse> parked = parkedA();
    issuedTo(W, token(1, 0));
    assertThat(parked).as("another client's token").isDone();
    parked = leases.lease(A, ask(1));
    issuedTo(null, token(2, 1));
    assertThat(parked).as("a token of an unknown client").isDone();

    parked = leases.lease(A, ask(2));
    leases.lease(B, ask(-1)).join();
    CompletableFuture<ReadLeaseResponse> parkedB = leases.lease(B, ask(2));
    issuedTo(A, token(3, 2));
    assertThat(parked).as("B's stable point waits for A's acknowledgement").isDone();
    assertThat(parkedB).isDone();
  }

  @Test
  void aLoneHoldersOwnTokensArePushedOnceTheyNameManyStreams() {
    CompletableFuture<ReadLeaseResponse> parked = parkedA();
    for (int i = 0; i < ReadLeases.DEFERRED_STREAMS - 1; i++) {
      issuedTo(A, token(i, StreamId.of("s" + i), 0));
    }
    assertThat(parked).isNotDone();
    issuedTo(A, token(ReadLeases.DEFERRED_STREAMS, StreamId.of("last"), 0));
    assertThat(parked).as("every answer to A would carry them all").isDone();
    assertThat(parked.join().getStreamsCount()).isEqualTo(ReadLeases.DEFERRED_STREAMS);
  }

  @Test
  void aNewHolderHasTheOldOnesUnpushedTokensAcknowledged() {
    CompletableFuture<ReadLeaseResponse> parked = parkedA();
    issuedTo(A, token(1, 0));
    assertThat(parked).isNotDone();
    ReadLeaseResponse b = leases.lease(B, ask(-1)).join();
    assertThat(parked).as("B's stable point waits for A").isDone();
    assertThat(b.getStable()).as("A has not acknowledged token 1 yet").isEqualTo(-1);
    leases.lease(A, ask(1));
    CompletableFuture<ReadLeaseResponse> parkedB = leases.lease(B, ask(1));
    assertThat(parkedB).isNotDone();
    assertThat(leases.pushFor(B, 1).getStable()).isEqualTo(1);
  }

  @Test
  void anAnswerWaitsAtMostUntilTheSilentHoldersLeaseRunsOut() throws Exception {
    ReadLeaseResponse first = leases.lease(A, ask(-1)).join();
    leases.issued(token(2, 0));
    CompletableFuture<Void> toWriter = leases.visibleTo(W, 2);
    assertThat(toWriter).isNotDone();
    advanceMillis(LEASE_MS + 1);
    // The timer re-checks at the lease end (real time); the fake clock is already past it.
    toWriter.get(5, TimeUnit.SECONDS);
    assertThat(leases.holders()).isZero();
    assertThat(leases.lease(A, ask(2)).get(1, TimeUnit.SECONDS).getIncarnation())
        .as("the lease had ended: a new incarnation")
        .isNotEqualTo(first.getIncarnation());
  }

  @Test
  void aNewHolderNeedNotApplyTokensIssuedBeforeItsLease() {
    leases.issued(token(9, 4));
    leases.lease(A, ask(-1)).join();
    assertThat(leases.visibleTo(W, 9)).isDone();
    leases.issued(token(10, 5));
    assertThat(leases.visibleTo(W, 10)).isNotDone();
  }

  @Test
  void releaseEndsTheLeaseAndFreesWaitingAnswers() throws Exception {
    leases.lease(A, ask(-1)).join();
    leases.issued(token(3, 0));
    CompletableFuture<Void> toWriter = leases.visibleTo(W, 3);
    assertThat(toWriter).isNotDone();
    ReadLeaseResponse r =
        leases.lease(A, ReadLeaseRequest.newBuilder().setRelease(true).build()).join();
    assertThat(r.getLeaseMs()).isZero();
    assertThat(toWriter).isDone();
    assertThat(leases.holders()).isZero();
  }

  @Test
  void requestsWithoutAClientOrALengthAreRefused() {
    assertThatThrownBy(() -> leases.lease(null, ask(-1)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("client id");
    assertThatThrownBy(() -> leases.lease(A, ReadLeaseRequest.newBuilder().setApplied(-1).build()))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("at least 1 ms");
  }

  @Test
  void leasesLongerThanTheMaximumAreCut() {
    ReadLeaseResponse r =
        leases.lease(A, ReadLeaseRequest.newBuilder().setLeaseMs(1_000_000).build()).join();
    assertThat(r.getLeaseMs()).isEqualTo((int) ReadLeases.MAX_LEASE.toMillis());
  }

  @Test
  void theMarkerIsWrittenBeforeAGrantAndMakesARestartWait() throws Exception {
    Path file = tmp.resolve("read-leases");
    try (ReadLeases withMarker = new ReadLeases(new LeaseMarker(file))) {
      assertThat(withMarker.serving()).isDone();
      long before = System.currentTimeMillis();
      withMarker.lease(A, ask(-1)).join();
      long recorded = Long.parseLong(Files.readString(file).trim());
      assertThat(recorded).isGreaterThanOrEqualTo(before + LEASE_MS);
    }
    try (ReadLeases restarted = new ReadLeases(new LeaseMarker(file))) {
      assertThat(restarted.serving())
          .as("a lease granted before the restart may still run")
          .isNotDone();
      restarted.serving().get(10, TimeUnit.SECONDS);
      assertThat(System.currentTimeMillis())
          .isGreaterThanOrEqualTo(Long.parseLong(Files.readString(file).trim()));
    }
  }

  @Test
  void aCorruptMarkerIsRefusedNamingTheFile() throws Exception {
    Path file = Files.writeString(tmp.resolve("read-leases"), "not a number");
    assertThatThrownBy(() -> new LeaseMarker(file))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("corrupt");
  }

  @Test
  void anAnswerThatNeverArrivedIsRepeatedByTheNextOne() throws Exception {
    StreamId t = StreamId.of("t");
    leases.lease(A, ask(-1)).join();
    CompletableFuture<ReadLeaseResponse> lost = leases.lease(A, ask(-1));
    leases.issued(token(1, 0));
    assertThat(lost).as("answered, but the answer is lost on the way").isDone();
    leases.issued(
        TokenResponse.newBuilder()
            .addTokens(
                Token.newBuilder()
                    .setGlobalAddress(2)
                    .addSlots(StreamSlot.newBuilder().setStream(t.toMsg()).setStreamAddress(0)))
            .build());
    // The client re-sends, still acknowledging nothing: the answer carries both tokens.
    ReadLeaseResponse again = leases.lease(A, ask(-1)).get(1, TimeUnit.SECONDS);
    assertThat(again.getGlobalTail()).isEqualTo(2);
    assertThat(again.getStreamsList()).containsExactlyInAnyOrder(S.toIdOnlyMsg(), t.toIdOnlyMsg());
    // A duplicate of the first answer arriving late changes nothing: acknowledging 2 covers both.
    CompletableFuture<ReadLeaseResponse> parked = leases.lease(A, ask(2));
    assertThat(parked).as("nothing left to push").isNotDone();
    assertThat(leases.visibleTo(W, 2)).isDone();
  }

  @Test
  void aPushedTokenBecomesStableOnlyOnceEveryOtherHolderAppliedIt() throws Exception {
    leases.lease(A, ask(-1)).join();
    leases.lease(B, ask(-1)).join();
    CompletableFuture<ReadLeaseResponse> parkedA = leases.lease(A, ask(-1));
    CompletableFuture<ReadLeaseResponse> parkedB = leases.lease(B, ask(-1));
    leases.issued(token(4, 0));
    ReadLeaseResponse pushA = parkedA.get(1, TimeUnit.SECONDS);
    assertThat(pushA.getGlobalTail()).isEqualTo(4);
    assertThat(pushA.getStable()).as("B has not applied 4").isLessThan(4);
    assertThat(parkedB.get(1, TimeUnit.SECONDS).getStable())
        .as("A has not applied 4")
        .isLessThan(4);

    CompletableFuture<ReadLeaseResponse> nextA = leases.lease(A, ask(4));
    assertThat(nextA).as("nothing new for A while B has not applied 4").isNotDone();
    CompletableFuture<ReadLeaseResponse> nextB = leases.lease(B, ask(4));
    // B's acknowledgement makes 4 stable for A, which is told at once; B learns it from A's.
    assertThat(nextA.get(1, TimeUnit.SECONDS).getStable()).isEqualTo(4);
    assertThat(nextB.get(1, TimeUnit.SECONDS).getStable()).isEqualTo(4);
    // Once told, neither is answered again until something changes.
    assertThat(leases.lease(A, ask(4))).isNotDone();
    assertThat(leases.lease(B, ask(4))).isNotDone();
  }

  @Test
  void theStablePointAnsweredWithARevealingResponseCoversWhatItReveals() {
    leases.lease(A, ask(-1)).join();
    leases.lease(B, ask(-1)).join();
    leases.issued(token(6, 0));
    CompletableFuture<Void> toA = leases.visibleTo(A, 6);
    assertThat(toA).isNotDone();
    leases.lease(B, ask(6));
    assertThat(toA).isDone();
    ReadLeaseResponse push = leases.pushFor(A, 6);
    assertThat(push.getGlobalTail()).isEqualTo(6);
    assertThat(push.getStable()).isGreaterThanOrEqualTo(6);
  }
}
