package io.vcorfu.client.rpc;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.ChainWriteResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Coalesces concurrent requests of one kind to one party on the wire. At most {@code maxInFlight}
 * messages are in flight at a time; a caller that finds fewer sends its request at once, unchanged.
 * Callers that arrive while that many are in flight are queued, and when one completes the queue
 * goes out as ONE message ({@code sendCombined} of at most {@code maxBatch} requests whose weights
 * sum to at most {@code maxWeight}, for instance bytes against the receiver's frame limit; a
 * request heavier than that alone goes out alone, by {@code send}); a queue that reaches {@code
 * maxBatch} requests or {@code maxWeight} goes out at once while fewer than {@code maxInFlightFull}
 * messages are in flight (a full message costs the wire and the receiver little per request, and
 * the receiver then works on it while this side handles the answers before it). The receiver
 * handles request by request, in order, as if each had been sent alone, answering each in its own
 * part of the response ({@code split}). Every caller gets the answer to its own request: coalescing
 * changes how many messages carry the requests, not what any request does.
 *
 * <p><b>Failures.</b> A failed message fails every caller it carried with the message's cause
 * (unwrapped from completion wrappers), as a failure of each caller's own message would; a response
 * whose parts do not match its requests fails them all. The queue behind it is still sent.
 *
 * <p>Thread-safe. Completions run on whatever thread completes the message's future (the network
 * I/O thread); nothing here blocks. One monitor guards the in-flight count and the queue, held only
 * to test or change them. Callers are answered before the queue is sent, so a caller that asks
 * again from its completion joins the next message.
 *
 * @param <Q> a request
 * @param <M> the answer to a combined message
 * @param <A> one request's answer
 */
final class Coalescer<Q, M, A> {
  /** One caller: its request and its answer. */
  private record Waiter<Q, A>(Q request, CompletableFuture<A> answer) {}

  private final Function<Q, CompletableFuture<A>> send;
  private final Function<List<Q>, CompletableFuture<M>> sendCombined;
  private final BiFunction<M, List<Q>, List<A>> split;
  private final int maxInFlight;
  private final int maxInFlightFull;
  private final int maxBatch;
  private final ToLongFunction<Q> weight;
  private final long maxWeight;
  private final Object monitor = new Object();
  // Guarded by monitor:
  private int inFlight;
  private final ArrayDeque<Waiter<Q, A>> queued = new ArrayDeque<>();
  private long queuedWeight;
  private long messages;
  private long requests;

  /**
   * @param send sends one request alone and returns its answer
   * @param sendCombined sends several requests (two or more) as one message, in order, and returns
   *     its answer
   * @param split the parts of a combined request's answer, given the requests it carried; fails
   *     when they do not match
   * @param maxInFlight the most messages in flight at a time (at least 1)
   * @param maxInFlightFull the most messages in flight at a time when {@code maxBatch} requests
   *     wait (at least {@code maxInFlight}): such a full message goes out at once, without waiting
   *     for an answer, so that the receiver works on it while this side handles earlier answers
   * @param maxBatch the most requests one message carries (at least 2)
   * @param weight a request's weight (0 or more), for instance its bytes or the bytes of its answer
   * @param maxWeight the most weight one combined message carries (at least 1)
   */
  Coalescer(
      Function<Q, CompletableFuture<A>> send,
      Function<List<Q>, CompletableFuture<M>> sendCombined,
      BiFunction<M, List<Q>, List<A>> split,
      int maxInFlight,
      int maxInFlightFull,
      int maxBatch,
      ToLongFunction<Q> weight,
      long maxWeight) {
    if (maxInFlight < 1 || maxInFlightFull < maxInFlight || maxBatch < 2 || maxWeight < 1) {
      throw new IllegalArgumentException(
          "maxInFlight must be at least 1, maxInFlightFull at least maxInFlight and maxBatch at"
              + " least 2, maxWeight at least 1, not "
              + maxInFlight
              + ", "
              + maxInFlightFull
              + ", "
              + maxBatch
              + " and "
              + maxWeight);
    }
    this.send = send;
    this.sendCombined = sendCombined;
    this.split = split;
    this.maxInFlight = maxInFlight;
    this.maxInFlightFull = maxInFlightFull;
    this.maxBatch = maxBatch;
    this.weight = weight;
    this.maxWeight = maxWeight;
  }

  /**
   * Coalesces concurrent chain writes to {@code node} ({@code ChainWriteRequest.batch}): each write
   * is handled there as if sent alone and answered in its own part of the response, and a write's
   * own failure comes back in its part as a step error, as for a write sent alone.
   */
  static Coalescer<ChainWriteRequest, ChainWriteResponse, ChainWriteResponse> chainWrites(
      Endpoint node,
      Function<ChainWriteRequest, CompletableFuture<ChainWriteResponse>> send,
      int maxInFlight,
      int maxBatch,
      long maxBytes) {
    return new Coalescer<>(
        send,
        requests -> send.apply(ChainWriteRequest.newBuilder().addAllBatch(requests).build()),
        (response, requests) -> {
          if (response.getBatchCount() != requests.size()) {
            throw new IllegalStateException(
                node
                    + " answered "
                    + response.getBatchCount()
                    + " chain writes of a batch of "
                    + requests.size());
          }
          return response.getBatchList();
        },
        maxInFlight,
        maxInFlight,
        maxBatch,
        ChainWriteRequest::getSerializedSize,
        maxBytes);
  }

  /** The answer to {@code request}, sent alone or with other callers' requests. */
  CompletableFuture<A> submit(Q request) {
    Waiter<Q, A> w = new Waiter<>(request, new CompletableFuture<>());
    boolean now;
    List<Waiter<Q, A>> full = null;
    synchronized (monitor) {
      now = inFlight < maxInFlight;
      if (now) {
        inFlight++;
      } else {
        queued.add(w);
        queuedWeight += weight.applyAsLong(request);
        if ((queued.size() >= maxBatch || queuedWeight >= maxWeight)
            && inFlight < maxInFlightFull) {
          inFlight++;
          full = take();
        }
      }
    }
    if (now) {
      dispatch(List.of(w));
    } else if (full != null) {
      dispatch(full);
    }
    return w.answer();
  }

  /** Messages sent so far, and the requests they carried. */
  long[] sentMessagesAndRequests() {
    synchronized (monitor) {
      return new long[] {messages, requests};
    }
  }

  private void dispatch(List<Waiter<Q, A>> batch) {
    synchronized (monitor) {
      messages++;
      requests += batch.size();
    }
    if (batch.size() == 1) {
      CompletableFuture<A> call;
      try {
        call = send.apply(batch.get(0).request());
      } catch (RuntimeException e) {
        call = CompletableFuture.failedFuture(e);
      }
      Waiter<Q, A> w = batch.get(0);
      call.whenComplete(
          (response, error) -> {
            if (error != null) {
              w.answer().completeExceptionally(Calls.unwrap(error));
            } else {
              w.answer().complete(response);
            }
            next();
          });
      return;
    }
    List<Q> all = new ArrayList<>(batch.size());
    for (Waiter<Q, A> w : batch) {
      all.add(w.request());
    }
    CompletableFuture<M> call;
    try {
      call = sendCombined.apply(all);
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    call.whenComplete(
        (response, error) -> {
          answer(batch, all, response, error);
          next();
        });
  }

  private void answer(List<Waiter<Q, A>> batch, List<Q> sent, M response, Throwable error) {
    List<A> parts = null;
    if (error == null) {
      try {
        parts = split.apply(response, sent);
      } catch (RuntimeException e) {
        error = e;
      }
    }
    if (error != null) {
      Throwable cause = Calls.unwrap(error);
      batch.forEach(w -> w.answer().completeExceptionally(cause));
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      batch.get(i).answer().complete(parts.get(i));
    }
  }

  /** Sends the queue as the next message, or frees the message's place if nothing waits. */
  private void next() {
    List<Waiter<Q, A>> batch;
    synchronized (monitor) {
      if (queued.isEmpty()) {
        inFlight--;
        return;
      }
      batch = take();
    }
    dispatch(batch);
  }

  /**
   * The next message's requests from the head of the queue (not empty): at most {@code maxBatch},
   * weighing at most {@code maxWeight} together unless the first alone weighs more. Holds monitor.
   */
  private List<Waiter<Q, A>> take() {
    List<Waiter<Q, A>> batch = new ArrayList<>(Math.min(queued.size(), maxBatch));
    long taken = 0;
    while (!queued.isEmpty() && batch.size() < maxBatch) {
      long w = weight.applyAsLong(queued.peek().request());
      if (!batch.isEmpty() && taken + w > maxWeight) {
        break;
      }
      taken += w;
      batch.add(queued.poll());
    }
    queuedWeight -= taken;
    return batch;
  }
}
