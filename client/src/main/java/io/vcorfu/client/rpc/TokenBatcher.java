package io.vcorfu.client.rpc;

import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.Tokens;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Coalesces one client's concurrent token requests on the wire (a {@link Coalescer} of token
 * requests). At most {@code maxInFlight} token messages are in flight at a time; a caller that
 * finds fewer sends its request at once, unchanged. Callers that arrive while that many are in
 * flight are queued, and when one completes the queue goes out as ONE message ({@code
 * TokenRequest.packed}, the fixed layout of {@link PackedTokens}, at most {@link #MAX_BATCH}
 * requests whose answer fits {@link PackedTokens#MAX_ANSWER_BYTES}; a request whose answer alone
 * would not is sent alone, as its own message), which the sequencer issues request by request, in
 * order, as if each had been sent alone. A full message's worth of waiting requests goes out at
 * once while fewer than {@link #MAX_FULL_IN_FLIGHT} messages are in flight, so that the sequencer
 * issues one while this client answers the callers of another. Every caller gets exactly the tokens
 * of its own request: coalescing changes how many messages carry the requests, not how many tokens
 * anyone receives. A caller of a coalesced message gets its part of the packed answer in place
 * ({@link PackedTokens#split}), with no protobuf message built for it.
 *
 * <p>Only unconditional requests are coalesced (a conditional one is checked and refused on its
 * own; see {@link ReplicaClient#token}).
 *
 * <p><b>Failures.</b> A failed message fails every caller it carried with the message's cause
 * (unwrapped from completion wrappers); as for any token request, no caller knows whether its
 * tokens were issued, and an unused token is a hole its readers fill. The queue behind it is still
 * sent.
 *
 * <p>Thread-safe. Completions run on whatever thread completes the message's future (the network
 * I/O thread); nothing here blocks. One monitor guards the in-flight count and the queue, held only
 * to test or change them. Callers are answered before the queue is sent, so a caller that asks
 * again from its completion joins the next message.
 */
public final class TokenBatcher {
  /** The most requests one message carries. */
  public static final int MAX_BATCH = 256;

  private final Coalescer<PackedTokens.Ask, TokenResponse, Tokens> coalescer;

  /** The most token messages in flight at a time while a full message's requests wait. */
  public static final int MAX_FULL_IN_FLIGHT = 3;

  /**
   * @param send sends one token request to the sequencer and returns its answer
   * @param maxInFlight the most token messages in flight at a time (at least 1); while {@link
   *     #MAX_BATCH} requests wait, up to {@link #MAX_FULL_IN_FLIGHT} (or {@code maxInFlight} if
   *     more)
   */
  public TokenBatcher(
      Function<TokenRequest, CompletableFuture<TokenResponse>> send, int maxInFlight) {
    this(send, Function.identity(), maxInFlight);
  }

  /**
   * @param send sends one token request to the sequencer and returns what carries its answer
   * @param answer the answer in what {@code send} returned (applied in the same completion stage)
   * @param maxInFlight as above
   */
  public <R> TokenBatcher(
      Function<TokenRequest, CompletableFuture<R>> send,
      Function<R, TokenResponse> answer,
      int maxInFlight) {
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be at least 1, not " + maxInFlight);
    }
    this.coalescer =
        new Coalescer<>(
            ask -> send.apply(ask.toRequest()).thenApply(r -> Tokens.of(answer.apply(r))),
            asks -> send.apply(PackedTokens.request(asks)).thenApply(answer),
            (response, asks) -> PackedTokens.split(asks, response),
            maxInFlight,
            Math.max(maxInFlight, MAX_FULL_IN_FLIGHT),
            MAX_BATCH,
            PackedTokens::answerBytes,
            PackedTokens.MAX_ANSWER_BYTES - PackedTokens.ANSWER_HEADER_BYTES);
  }

  /**
   * Tokens for {@code ask} (unconditional), sent alone (as {@link PackedTokens.Ask#toRequest}) or
   * with other callers' requests.
   */
  public CompletableFuture<Tokens> token(PackedTokens.Ask ask) {
    return coalescer.submit(ask);
  }

  /** Token messages sent so far, and requests they carried (for tests and metrics). */
  public long[] sentMessagesAndRequests() {
    return coalescer.sentMessagesAndRequests();
  }
}
