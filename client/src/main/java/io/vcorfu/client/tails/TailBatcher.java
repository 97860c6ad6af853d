package io.vcorfu.client.tails;

import io.vcorfu.client.Tails;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.Messages;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.TailResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Coalesces concurrent tail queries so that at most one tail request is in flight at a time.
 *
 * <p>A caller that arrives while no request is in flight sends one at once, for its own streams.
 * Callers that arrive while a request is in flight are queued; when the in-flight request
 * completes, all of them are answered by ONE new request, sent right away, that asks for the union
 * of their streams (the global tail is part of every answer, so a caller asking for no stream is
 * served by any request). Each caller receives a {@link Tails} holding exactly the streams it asked
 * for.
 *
 * <p><b>Freshness (what makes local-view reads linearizable).</b> Every caller is answered by a
 * request that was sent after its call began: either the request it sent itself, or the one sent
 * when the request that was in flight on its arrival completed. A caller is never answered by the
 * request that was already in flight when it arrived, whose answer may predate the call. Since the
 * sequencer answers each request with the tails as of the moment it handles that request, every
 * tail a caller receives is at least as high as any tail that existed when its call began.
 *
 * <p><b>Failures.</b> A failed request fails every caller of its batch with the request's cause
 * (unwrapped from completion wrappers); the batch queued behind it is still sent.
 *
 * <p>Thread-safe. Completions run on whatever thread completes the request's future (for a cluster,
 * the network I/O thread); nothing here blocks. One monitor guards the in-flight flag and the
 * queue, held only to test or swap them.
 */
public final class TailBatcher {
  /** One caller: the streams it asked for and its answer. */
  private record Waiter(List<StreamId> streams, CompletableFuture<Tails> answer) {}

  private final Function<List<StreamId>, CompletableFuture<TailResponse>> send;
  private final Object monitor = new Object();
  // Guarded by monitor:
  private boolean inFlight;
  private List<Waiter> queued = new ArrayList<>();

  /**
   * @param send sends one tail request for the given streams (an empty list asks for the global
   *     tail only) and returns the sequencer's answer, its stream tails in request order
   */
  public TailBatcher(Function<List<StreamId>, CompletableFuture<TailResponse>> send) {
    this.send = send;
  }

  /**
   * The tails of {@code streams} and the global tail, from a request sent after this call began.
   * Fails with the typed cause of the request's failure.
   */
  public CompletableFuture<Tails> tails(Collection<StreamId> streams) {
    Waiter waiter = new Waiter(List.copyOf(streams), new CompletableFuture<>());
    synchronized (monitor) {
      if (inFlight) {
        queued.add(waiter);
        return waiter.answer();
      }
      inFlight = true;
    }
    dispatch(List.of(waiter));
    return waiter.answer();
  }

  /**
   * Sends {@code batch}; when its answer is in, sends the batch queued meanwhile (if any) and then
   * answers {@code batch}. Requests that complete at once are handled in a loop, not by recursion.
   */
  private void dispatch(List<Waiter> batch) {
    while (batch != null) {
      List<StreamId> union = union(batch);
      CompletableFuture<TailResponse> request;
      try {
        request = send.apply(union);
      } catch (RuntimeException e) {
        request = CompletableFuture.failedFuture(e);
      }
      if (!request.isDone()) {
        List<Waiter> sent = batch;
        request.whenComplete(
            (response, error) -> {
              dispatch(takeQueued());
              answer(sent, union, response, error);
            });
        return;
      }
      List<Waiter> next = takeQueued();
      TailResponse response = null;
      Throwable error = null;
      try {
        response = request.join();
      } catch (RuntimeException e) {
        error = e;
      }
      answer(batch, union, response, error);
      batch = next;
    }
  }

  /** The callers queued behind the request that just completed, or null (nothing in flight now). */
  private List<Waiter> takeQueued() {
    synchronized (monitor) {
      if (queued.isEmpty()) {
        inFlight = false;
        return null;
      }
      List<Waiter> next = queued;
      queued = new ArrayList<>();
      return next;
    }
  }

  private static List<StreamId> union(List<Waiter> batch) {
    if (batch.size() == 1) {
      return batch.get(0).streams();
    }
    Set<StreamId> all = new LinkedHashSet<>();
    for (Waiter w : batch) {
      all.addAll(w.streams());
    }
    return List.copyOf(all);
  }

  private static void answer(
      List<Waiter> batch, List<StreamId> union, TailResponse response, Throwable error) {
    Tails all = null;
    if (error == null) {
      try {
        all = Messages.tails(union, response);
      } catch (RuntimeException malformed) {
        error = malformed;
      }
    }
    if (error != null) {
      Throwable cause = EpochRpc.unwrap(error);
      for (Waiter w : batch) {
        w.answer().completeExceptionally(cause);
      }
      return;
    }
    for (Waiter w : batch) {
      Map<StreamId, Long> tails = new LinkedHashMap<>();
      Map<StreamId, Long> lastGlobal = new LinkedHashMap<>();
      for (StreamId s : w.streams()) {
        tails.put(s, all.streamTails().get(s));
        lastGlobal.put(s, all.streamLastGlobal().get(s));
      }
      w.answer().complete(new Tails(all.globalTail(), tails, lastGlobal));
    }
  }
}
