package io.vcorfu.client.rpc;

import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Coalesces one client's concurrent token requests on the wire. At most {@code maxInFlight} token
 * messages are in flight at a time; a caller that finds fewer sends its request at once, unchanged.
 * Callers that arrive while that many are in flight are queued, and when one completes the queue
 * goes out as ONE message ({@code TokenRequest.batch}, at most {@link #MAX_BATCH} requests), which
 * the sequencer issues request by request, in order, as if each had been sent alone. Every caller
 * gets exactly the tokens of its own request: coalescing changes how many messages carry the
 * requests, not how many tokens anyone receives.
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

  /** One caller: its request and its answer. */
  private record Waiter(TokenRequest request, CompletableFuture<TokenResponse> answer) {}

  private final Function<TokenRequest, CompletableFuture<TokenResponse>> send;
  private final int maxInFlight;
  private final Object monitor = new Object();
  // Guarded by monitor:
  private int inFlight;
  private final ArrayDeque<Waiter> queued = new ArrayDeque<>();
  private long messages;
  private long requests;

  /**
   * @param send sends one token request to the sequencer and returns its answer
   * @param maxInFlight the most token messages in flight at a time (at least 1)
   */
  public TokenBatcher(
      Function<TokenRequest, CompletableFuture<TokenResponse>> send, int maxInFlight) {
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be at least 1, not " + maxInFlight);
    }
    this.send = send;
    this.maxInFlight = maxInFlight;
  }

  /** Tokens for {@code request} (unconditional), sent alone or with other callers' requests. */
  public CompletableFuture<TokenResponse> token(TokenRequest request) {
    Waiter w = new Waiter(request, new CompletableFuture<>());
    boolean now;
    synchronized (monitor) {
      now = inFlight < maxInFlight;
      if (now) {
        inFlight++;
      } else {
        queued.add(w);
      }
    }
    if (now) {
      dispatch(List.of(w));
    }
    return w.answer;
  }

  /** Token messages sent so far, and requests they carried (for tests and metrics). */
  public long[] sentMessagesAndRequests() {
    synchronized (monitor) {
      return new long[] {messages, requests};
    }
  }

  private void dispatch(List<Waiter> batch) {
    synchronized (monitor) {
      messages++;
      requests += batch.size();
    }
    CompletableFuture<TokenResponse> call;
    try {
      if (batch.size() == 1) {
        call = send.apply(batch.get(0).request());
      } else {
        TokenRequest.Builder b = TokenRequest.newBuilder();
        for (Waiter w : batch) {
          b.addBatch(w.request());
        }
        call = send.apply(b.build());
      }
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    call.whenComplete(
        (response, error) -> {
          answer(batch, response, error);
          next();
        });
  }

  private static void answer(List<Waiter> batch, TokenResponse response, Throwable error) {
    if (error == null && batch.size() > 1 && response.getBatchCount() != batch.size()) {
      error =
          new IllegalStateException(
              "the sequencer answered "
                  + response.getBatchCount()
                  + " responses to a batch of "
                  + batch.size()
                  + " token requests");
    }
    if (error != null) {
      Throwable cause = EpochRpc.unwrap(error);
      batch.forEach(w -> w.answer().completeExceptionally(cause));
      return;
    }
    if (batch.size() == 1) {
      batch.get(0).answer().complete(response);
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      batch.get(i).answer().complete(response.getBatch(i));
    }
  }

  /** Sends the queue as the next message, or frees the message's place if nothing waits. */
  private void next() {
    List<Waiter> batch;
    synchronized (monitor) {
      if (queued.isEmpty()) {
        inFlight--;
        return;
      }
      batch = new ArrayList<>(Math.min(queued.size(), MAX_BATCH));
      while (!queued.isEmpty() && batch.size() < MAX_BATCH) {
        batch.add(queued.poll());
      }
    }
    dispatch(batch);
  }
}
