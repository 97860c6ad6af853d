package io.vcorfu.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.protocol.proto.TailResponse;
import io.vcorfu.protocol.proto.TokenRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Tail requests the sequencer holds until a stream moves (a watch's long poll). */
class HeldTailTest {
  private static final StreamId A = StreamId.of("a");
  private static final StreamId B = StreamId.of("b");
  private static final StreamId C = StreamId.of("c");

  private static SequencerService started(SequencerService.Mode mode) {
    SequencerService service = new SequencerService(new Sequencer(), mode);
    service.bootstrap(-1, Map.of()).join();
    return service;
  }

  private static void issue(SequencerService service, StreamId... streams) {
    TokenRequest.Builder b = TokenRequest.newBuilder();
    for (StreamId s : streams) {
      b.addStreams(s.toMsg());
    }
    service.token(b.build()).join();
  }

  private static TailRequest held(int waitMs, Object... streamsAndMarks) {
    TailRequest.Builder b = TailRequest.newBuilder().setWaitMs(waitMs);
    for (int i = 0; i < streamsAndMarks.length; i += 2) {
      b.addStreams(((StreamId) streamsAndMarks[i]).toMsg());
      b.addPastStreamTails((Long) streamsAndMarks[i + 1]);
    }
    return b.build();
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void answersOnceAWatchedStreamPassesItsMarkAndNotBefore(SequencerService.Mode mode) {
    try (SequencerService service = started(mode)) {
      issue(service, A); // a's tail 0
      CompletableFuture<TailResponse> answer = service.tail(held(30_000, A, 0L, B, -1L));
      issue(service, C);
      assertThat(answer).as("c's token moves neither a nor b").isNotDone();
      issue(service, A, C); // a's tail 1: past its mark
      TailResponse r = answer.orTimeout(10, TimeUnit.SECONDS).join();
      assertThat(r.getStreamTailsList()).containsExactly(1L, -1L);
      assertThat(r.getGlobalTail()).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void tokensOfOtherStreamsLeaveItHeld(SequencerService.Mode mode) {
    try (SequencerService service = started(mode)) {
      CompletableFuture<TailResponse> answer = service.tail(held(30_000, A, -1L));
      for (int i = 0; i < 20; i++) {
        issue(service, B);
      }
      // Every issuance is checked synchronously against the held requests, so an answer would be
      // complete by now.
      assertThat(answer).isNotDone();
      issue(service, A);
      assertThat(answer.orTimeout(10, TimeUnit.SECONDS).join().getStreamTails(0)).isEqualTo(0);
    }
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void answersAtOnceWhenAlreadyPastAndAtTheDeadlineWhenNothingMoves(SequencerService.Mode mode) {
    try (SequencerService service = started(mode)) {
      issue(service, A);
      assertThat(service.tail(held(30_000, A, -1L)).orTimeout(10, TimeUnit.SECONDS).join())
          .extracting(r -> r.getStreamTails(0))
          .isEqualTo(0L);
      CompletableFuture<TailResponse> quiet = service.tail(held(200, A, 0L));
      TailResponse r = quiet.orTimeout(10, TimeUnit.SECONDS).join();
      assertThat(r.getStreamTailsList())
          .as("answered unchanged at its deadline")
          .containsExactly(0L);
    }
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void closingFailsWhatIsHeld(SequencerService.Mode mode) {
    SequencerService service = started(mode);
    List<CompletableFuture<TailResponse>> answers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      answers.add(service.tail(held(30_000, A, -1L)));
    }
    service.close();
    for (CompletableFuture<TailResponse> a : answers) {
      assertThatThrownBy(() -> a.orTimeout(10, TimeUnit.SECONDS).join())
          .isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(NotServingException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void aMarkCountOtherThanTheStreamCountIsRefused(SequencerService.Mode mode) {
    try (SequencerService service = started(mode)) {
      TailRequest bad =
          TailRequest.newBuilder()
              .addStreams(A.toMsg())
              .addStreams(B.toMsg())
              .addPastStreamTails(0)
              .setWaitMs(1000)
              .build();
      assertThatThrownBy(() -> service.tail(bad).join())
          .hasCauseInstanceOf(BadRequestException.class)
          .hasMessageContaining("one mark per stream");
    }
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void aSequencerNotBootstrappedRefusesAHeldRequest(SequencerService.Mode mode) {
    try (SequencerService service = new SequencerService(new Sequencer(), mode)) {
      assertThatThrownBy(() -> service.tail(held(1000, A, -1L)).join())
          .hasCauseInstanceOf(NotServingException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void anAnswerReleasedByATokenThisNodeWritesWaitsForTheWriteHoweverItEnds(
      SequencerService.Mode mode) {
    try (SequencerService service = started(mode)) {
      CompletableFuture<TailResponse> first = service.tail(held(30_000, A, -1L));
      CompletableFuture<Object> written = new CompletableFuture<>();
      TokenRequest a = TokenRequest.newBuilder().addStreams(A.toMsg()).build();
      service.token(a, written, null).join();
      assertThat(first).as("delivered only once the entry is written").isNotDone();
      written.complete(null);
      assertThat(first.orTimeout(10, TimeUnit.SECONDS).join().getStreamTails(0)).isEqualTo(0);

      CompletableFuture<TailResponse> second = service.tail(held(30_000, A, 0L));
      CompletableFuture<Object> failed = new CompletableFuture<>();
      service.token(a, failed, null).join();
      assertThat(second).isNotDone();
      failed.completeExceptionally(new IllegalStateException("the write failed"));
      // The tails are the issuance's: a watcher re-reads and decides the slot as for any writer.
      assertThat(second.orTimeout(10, TimeUnit.SECONDS).join().getStreamTails(0)).isEqualTo(1);

      // Tokens without a gate answer at once, as before.
      CompletableFuture<TailResponse> third = service.tail(held(30_000, A, 1L));
      issue(service, A);
      assertThat(third.orTimeout(10, TimeUnit.SECONDS).join().getStreamTails(0)).isEqualTo(2);
    }
  }
}
