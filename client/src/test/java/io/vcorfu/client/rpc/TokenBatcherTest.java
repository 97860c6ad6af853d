package io.vcorfu.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Tokens;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.sequencer.Sequencer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * The token batcher sends a caller alone while messages are free, coalesces the callers that wait
 * behind busy ones into one message, and answers each caller with the tokens of its own request,
 * issued by a real sequencer.
 */
class TokenBatcherTest {
  private final Sequencer sequencer = new Sequencer();

  /** Messages sent and not answered yet, in order, with what they asked. */
  private final List<CompletableFuture<TokenResponse>> pending = new ArrayList<>();

  private final List<TokenRequest> sent = new ArrayList<>();

  private final TokenBatcher batcher = recording(2);

  /** A batcher whose messages are recorded in {@link #sent} and answered by {@link #answer}. */
  private TokenBatcher recording(int maxInFlight) {
    return new TokenBatcher(
        r -> {
          sent.add(r);
          CompletableFuture<TokenResponse> f = new CompletableFuture<>();
          pending.add(f);
          return f;
        },
        maxInFlight);
  }

  private static PackedTokens.Ask ask(String stream, int count) {
    return new PackedTokens.Ask(List.of(StreamId.of(stream)), count);
  }

  private static TokenRequest request(String stream, int count) {
    return ask(stream, count).toRequest();
  }

  /** Answers the {@code i}-th message sent as the sequencer would. */
  private void answer(int i) {
    TokenRequest r = sent.get(i);
    pending
        .get(i)
        .complete(!r.getPacked().isEmpty() ? sequencer.issuePacked(r) : sequencer.issue(r));
  }

  /** How many callers' requests message {@code r} carries. */
  private static int requestsIn(TokenRequest r) {
    if (r.getPacked().isEmpty()) {
      return 1;
    }
    java.nio.ByteBuffer b = r.getPacked().asReadOnlyByteBuffer();
    int n = 0;
    while (b.hasRemaining()) {
      b.getInt();
      b.position(b.position() + 4 + PackedTokens.STREAM_BYTES * b.getInt(b.position()));
      n++;
    }
    return n;
  }

  private static void addAll(Set<Long> addresses, Tokens tokens) {
    for (int t = 0; t < tokens.count(); t++) {
      addresses.add(tokens.globalAddress(t));
    }
  }

  @Test
  void callersBehindBusyMessagesGoOutTogetherAndEachGetsItsOwnTokens() throws Exception {
    sequencer.bootstrap(1, -1, java.util.Map.of());
    CompletableFuture<Tokens> a = batcher.token(ask("a", 1));
    CompletableFuture<Tokens> b = batcher.token(ask("b", 2));
    List<CompletableFuture<Tokens>> waiting = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiting.add(batcher.token(ask("w" + i, 1 + i % 3)));
    }
    assertThat(sent).as("the first two callers each sent alone").hasSize(2);
    assertThat(requestsIn(sent.get(0))).isEqualTo(1);
    assertThat(sent.get(0).getPacked().isEmpty()).as("a caller alone is sent unchanged").isTrue();

    answer(0);
    assertThat(sent).as("the five waiting callers went out in one message").hasSize(3);
    assertThat(requestsIn(sent.get(2))).isEqualTo(5);
    answer(1);
    answer(2);

    assertThat(a.get().count()).isEqualTo(1);
    assertThat(b.get().count()).isEqualTo(2);
    Set<Long> addresses = new HashSet<>();
    addAll(addresses, a.get());
    addAll(addresses, b.get());
    for (int i = 0; i < 5; i++) {
      Tokens r = waiting.get(i).get();
      assertThat(r.count()).as("caller %d's count", i).isEqualTo(1 + i % 3);
      assertThat(r.stream(0)).as("caller %d's stream", i).isEqualTo(StreamId.of("w" + i));
      assertThat(r.token(0).getSlots(0).getStream())
          .as("caller %d's stream in its token's message", i)
          .isEqualTo(StreamId.of("w" + i).toMsg());
      addAll(addresses, r);
    }
    assertThat(addresses).as("every token issued once").hasSize(1 + 2 + (1 + 2 + 3 + 1 + 2));
    assertThat(batcher.sentMessagesAndRequests()).containsExactly(3, 7);
  }

  @Test
  void aFailedMessageFailsEveryCallerItCarriedAndTheQueueBehindItStillGoes() throws Exception {
    sequencer.bootstrap(1, -1, java.util.Map.of());
    batcher.token(ask("a", 1));
    batcher.token(ask("b", 1));
    CompletableFuture<Tokens> c = batcher.token(ask("c", 1));
    CompletableFuture<Tokens> d = batcher.token(ask("d", 1));
    answer(0); // c and d go out together
    pending.get(2).completeExceptionally(new IllegalStateException("connection lost"));
    assertThatThrownBy(c::get).hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(d::get).hasCauseInstanceOf(IllegalStateException.class);

    CompletableFuture<Tokens> e = batcher.token(ask("e", 1));
    CompletableFuture<Tokens> f = batcher.token(ask("f", 1));
    answer(1);
    answer(3);
    answer(sent.size() - 1);
    assertThat(e.get().count()).isEqualTo(1);
    assertThat(f.get().count()).isEqualTo(1);
  }

  @Test
  void aFullMessagesWorthOfWaitingCallersGoesOutAtOnceUpToTheLimit() throws Exception {
    sequencer.bootstrap(1, -1, java.util.Map.of());
    TokenBatcher one = recording(1);
    List<CompletableFuture<Tokens>> callers = new ArrayList<>();
    int total = 1 + TokenBatcher.MAX_BATCH * TokenBatcher.MAX_FULL_IN_FLIGHT + 5;
    for (int i = 0; i < total; i++) {
      callers.add(one.token(ask("s" + (i % 7), 1)));
    }
    assertThat(sent)
        .as(
            "the first caller alone, then full messages until %d are in flight",
            TokenBatcher.MAX_FULL_IN_FLIGHT)
        .hasSize(TokenBatcher.MAX_FULL_IN_FLIGHT);
    assertThat(requestsIn(sent.get(0))).isEqualTo(1);
    for (int i = 1; i < sent.size(); i++) {
      assertThat(requestsIn(sent.get(i))).isEqualTo(TokenBatcher.MAX_BATCH);
    }
    for (int i = 0; i < sent.size(); i++) {
      answer(i);
    }
    Set<Long> addresses = new HashSet<>();
    for (CompletableFuture<Tokens> c : callers) {
      assertThat(c).isDone();
      addresses.add(c.get().globalAddress(0));
    }
    assertThat(addresses).as("every caller answered with its own token").hasSize(total);
    assertThat(one.sentMessagesAndRequests()[1]).isEqualTo(total);
  }

  @Test
  void waitingCallersWhoseAnswersWouldPassTheAnswerLimitGoOutInSeveralMessages() throws Exception {
    sequencer.bootstrap(1, -1, java.util.Map.of());
    TokenBatcher one = recording(1);
    List<CompletableFuture<Tokens>> callers = new ArrayList<>();
    List<Integer> asked = new ArrayList<>();
    // 32 KiB of answer each: 255 fit one message's answer, 256 do not.
    int small = 2048;
    for (int i = 0; i < 600; i++) {
      callers.add(one.token(ask("s" + (i % 5), small)));
      asked.add(small);
      if (i == 300) {
        // 8 MiB of answer alone: more than a packed answer may hold, so it goes alone, unpacked.
        List<StreamId> eight = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
          eight.add(StreamId.of("big-" + k));
        }
        callers.add(one.token(new PackedTokens.Ask(eight, 65_536)));
        asked.add(65_536);
      }
    }
    for (int i = 0; i < sent.size(); i++) {
      answer(i); // the sequencer refuses (throws) a packed message whose answer is too large
    }
    for (int i = 0; i < callers.size(); i++) {
      assertThat(callers.get(i)).isDone();
      assertThat(callers.get(i).get().count()).isEqualTo(asked.get(i));
    }
    long packed = sent.stream().filter(r -> !r.getPacked().isEmpty()).count();
    assertThat(sent.stream().filter(r -> r.getCount() == 65_536))
        .as("the large request went alone, unpacked")
        .hasSize(1);
    assertThat(sent.stream().mapToInt(TokenBatcherTest::requestsIn).max().orElseThrow())
        .isLessThanOrEqualTo(255);
    assertThat(packed).as("the small ones in messages within the limit").isGreaterThanOrEqualTo(3);
  }

  @Test
  void aBatchWithABadRequestIssuesNothing() {
    sequencer.bootstrap(1, -1, java.util.Map.of());
    TokenRequest duplicate =
        TokenRequest.newBuilder()
            .addStreams(StreamId.of("x").toMsg())
            .addStreams(StreamId.of("x").toMsg())
            .build();
    TokenRequest batch =
        TokenRequest.newBuilder().addBatch(request("ok", 1)).addBatch(duplicate).build();
    assertThatThrownBy(() -> sequencer.issueBatch(batch, x -> {}))
        .isInstanceOf(BadRequestException.class);
    assertThat(sequencer.globalTail()).as("nothing issued").isEqualTo(-1);

    TokenRequest nested = TokenRequest.newBuilder().addBatch(batch).build();
    assertThatThrownBy(() -> sequencer.issueBatch(nested, x -> {}))
        .isInstanceOf(BadRequestException.class);
    assertThatThrownBy(() -> sequencer.issue(batch))
        .as("a batch is not a request")
        .isInstanceOf(BadRequestException.class);
    assertThat(sequencer.globalTail()).isEqualTo(-1);
  }

  @Test
  void aCallerAloneIsSentAtOnceUnchanged() throws ExecutionException, InterruptedException {
    sequencer.bootstrap(1, -1, java.util.Map.of());
    CompletableFuture<Tokens> f = batcher.token(ask("alone", 3));
    assertThat(sent).containsExactly(request("alone", 3));
    answer(0);
    assertThat(f.get().count()).isEqualTo(3);
    assertThat(batcher.sentMessagesAndRequests()).containsExactly(1, 1);
  }
}
