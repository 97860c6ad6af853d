package io.vcorfu.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.StreamId;
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

  private final TokenBatcher batcher =
      new TokenBatcher(
          r -> {
            sent.add(r);
            CompletableFuture<TokenResponse> f = new CompletableFuture<>();
            pending.add(f);
            return f;
          },
          2);

  private static TokenRequest request(String stream, int count) {
    return TokenRequest.newBuilder()
        .addStreams(StreamId.of(stream).toMsg())
        .setCount(count)
        .build();
  }

  /** Answers the {@code i}-th message sent as the sequencer would. */
  private void answer(int i) {
    TokenRequest r = sent.get(i);
    pending
        .get(i)
        .complete(r.getBatchCount() > 0 ? sequencer.issueBatch(r, x -> {}) : sequencer.issue(r));
  }

  @Test
  void callersBehindBusyMessagesGoOutTogetherAndEachGetsItsOwnTokens() throws Exception {
    sequencer.bootstrap(1, -1, java.util.Map.of());
    CompletableFuture<TokenResponse> a = batcher.token(request("a", 1));
    CompletableFuture<TokenResponse> b = batcher.token(request("b", 2));
    List<CompletableFuture<TokenResponse>> waiting = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiting.add(batcher.token(request("w" + i, 1 + i % 3)));
    }
    assertThat(sent).as("the first two callers each sent alone").hasSize(2);
    assertThat(sent.get(0).getBatchCount()).isZero();

    answer(0);
    assertThat(sent).as("the five waiting callers went out in one message").hasSize(3);
    assertThat(sent.get(2).getBatchCount()).isEqualTo(5);
    answer(1);
    answer(2);

    assertThat(a.get().getTokensCount()).isEqualTo(1);
    assertThat(b.get().getTokensCount()).isEqualTo(2);
    Set<Long> addresses = new HashSet<>();
    a.get().getTokensList().forEach(t -> addresses.add(t.getGlobalAddress()));
    b.get().getTokensList().forEach(t -> addresses.add(t.getGlobalAddress()));
    for (int i = 0; i < 5; i++) {
      TokenResponse r = waiting.get(i).get();
      assertThat(r.getTokensCount()).as("caller %d's count", i).isEqualTo(1 + i % 3);
      assertThat(r.getTokens(0).getSlots(0).getStream())
          .as("caller %d's stream", i)
          .isEqualTo(StreamId.of("w" + i).toMsg());
      r.getTokensList().forEach(t -> addresses.add(t.getGlobalAddress()));
    }
    assertThat(addresses).as("every token issued once").hasSize(1 + 2 + (1 + 2 + 3 + 1 + 2));
    assertThat(batcher.sentMessagesAndRequests()).containsExactly(3, 7);
  }

  @Test
  void aFailedMessageFailsEveryCallerItCarriedAndTheQueueBehindItStillGoes() throws Exception {
    sequencer.bootstrap(1, -1, java.util.Map.of());
    batcher.token(request("a", 1));
    batcher.token(request("b", 1));
    CompletableFuture<TokenResponse> c = batcher.token(request("c", 1));
    CompletableFuture<TokenResponse> d = batcher.token(request("d", 1));
    answer(0); // c and d go out together
    pending.get(2).completeExceptionally(new IllegalStateException("connection lost"));
    assertThatThrownBy(c::get).hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(d::get).hasCauseInstanceOf(IllegalStateException.class);

    CompletableFuture<TokenResponse> e = batcher.token(request("e", 1));
    CompletableFuture<TokenResponse> f = batcher.token(request("f", 1));
    answer(1);
    answer(3);
    answer(sent.size() - 1);
    assertThat(e.get().getTokensCount()).isEqualTo(1);
    assertThat(f.get().getTokensCount()).isEqualTo(1);
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
    TokenRequest r = request("alone", 3);
    CompletableFuture<TokenResponse> f = batcher.token(r);
    assertThat(sent).containsExactly(r);
    answer(0);
    assertThat(f.get().getTokensCount()).isEqualTo(3);
    assertThat(batcher.sentMessagesAndRequests()).containsExactly(1, 1);
  }
}
