package io.vcorfu.sequencer;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.protocol.proto.TailResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Tail requests held by the sequencer until one of their streams moves (a watch's long poll; see
 * {@code TailRequest.past_stream_tails}).
 *
 * <p>Invariant: a held request is answered exactly once, with tails read in the sequencer's order
 * at or after the moment it is answered for: the first issuance that takes one of its streams past
 * its mark, its deadline (the tails then, possibly unchanged), or the service closing (an error).
 * So a watcher never misses a token issued while it was held, and an answer never predates the
 * request.
 *
 * <p>An issuance may come with a <em>gate</em> ({@link #issued(Sequencer, CompletableFuture)}): the
 * write of the entry the sequencer's own node makes with the token. The answers that issuance
 * releases are then delivered once the gate completes (however it completes), so a watcher reads
 * the new entry written rather than racing its write and reading again. The answers' tails are
 * still those of the issuance; only their delivery waits.
 *
 * <p>Everything but {@link #completeDue} is confined to the sequencer's serialization (its lock or
 * drainer thread). Answers are collected there and completed by {@link #completeDue}, called
 * outside it, so what depends on an answer never runs while the sequencer is held.
 */
final class TailWaits {
  /** The most requests held at once; past it a request is answered at once. */
  static final int MAX_HELD = 10_000;

  /** The longest a request is held, whatever it asks. */
  static final long MAX_WAIT_MS = 30_000;

  /** One held request. */
  static final class Held {
    final TailRequest request;
    final CompletableFuture<TailResponse> answer = new CompletableFuture<>();
    private final List<StreamId> streams = new ArrayList<>();
    private final long[] marks;

    Held(TailRequest request) {
      this.request = request;
      for (StreamIdMsg m : request.getStreamsList()) {
        streams.add(StreamId.fromMsg(m));
      }
      marks = new long[streams.size()];
      for (int i = 0; i < marks.length; i++) {
        marks[i] = request.getPastStreamTails(i);
      }
    }

    /** Whether some stream of this request is past its mark in {@code s}. */
    boolean passed(Sequencer s) {
      for (int i = 0; i < marks.length; i++) {
        if (s.streamTail(streams.get(i)) > marks[i]) {
          return true;
        }
      }
      return false;
    }
  }

  private record Due(
      Held held, TailResponse response, RuntimeException error, CompletableFuture<?> gate) {
    Due(Held held, TailResponse response, RuntimeException error) {
      this(held, response, error, null);
    }

    void complete() {
      if (error != null) {
        held.answer.completeExceptionally(error);
      } else {
        held.answer.complete(response);
      }
    }
  }

  // Confined to the sequencer's serialization:
  private final Map<StreamId, Set<Held>> byStream = new HashMap<>();
  private int held;
  // Filled under the serialization, drained by anyone outside it:
  private final ConcurrentLinkedQueue<Due> due = new ConcurrentLinkedQueue<>();

  /** Whether some request is held (cheap: checked on every issuance). */
  boolean any() {
    return held > 0;
  }

  /**
   * Answers {@code h} now when one of its streams is already past its mark or too many requests are
   * held; otherwise holds it. Returns whether it was held.
   */
  boolean holdUnlessPassed(Held h, Sequencer s) {
    if (h.passed(s) || held >= MAX_HELD) {
      due.add(new Due(h, s.tails(h.request), null));
      return false;
    }
    for (StreamId id : h.streams) {
      byStream.computeIfAbsent(id, k -> new LinkedHashSet<>()).add(h);
    }
    held++;
    return true;
  }

  /** After an issuance: every held request whose stream moved past its mark is answered. */
  void issued(Sequencer s) {
    issued(s, null);
  }

  /**
   * {@link #issued(Sequencer)} for an issuance whose answers are delivered once {@code gate}
   * completes (null: at once).
   */
  void issued(Sequencer s, CompletableFuture<?> gate) {
    if (held == 0) {
      return;
    }
    Set<Held> passed = new LinkedHashSet<>();
    for (Map.Entry<StreamId, Set<Held>> e : byStream.entrySet()) {
      long tail = s.streamTail(e.getKey());
      for (Held h : e.getValue()) {
        if (tail > h.marks[h.streams.indexOf(e.getKey())]) {
          passed.add(h);
        }
      }
    }
    for (Held h : passed) {
      release(h);
      due.add(new Due(h, s.tails(h.request), null, gate));
    }
  }

  /** At {@code h}'s deadline: answered with the tails now, unless it was answered already. */
  void expire(Held h, Sequencer s) {
    if (release(h)) {
      due.add(new Due(h, s.tails(h.request), null));
    }
  }

  /** The service stops: every held request fails with {@code error}. */
  void failAll(RuntimeException error) {
    Set<Held> all = new LinkedHashSet<>();
    byStream.values().forEach(all::addAll);
    for (Held h : all) {
      release(h);
      due.add(new Due(h, null, error));
    }
  }

  /** Completes the answers collected so far. Call outside the sequencer's serialization. */
  void completeDue() {
    for (Due d; (d = due.poll()) != null; ) {
      if (d.gate() == null || d.gate().isDone()) {
        d.complete();
      } else {
        Due gated = d;
        d.gate().whenComplete((v, e) -> gated.complete());
      }
    }
  }

  private boolean release(Held h) {
    boolean was = false;
    for (StreamId id : h.streams) {
      Set<Held> waiting = byStream.get(id);
      if (waiting != null && waiting.remove(h)) {
        was = true;
        if (waiting.isEmpty()) {
          byStream.remove(id);
        }
      }
    }
    if (was) {
      held--;
    }
    return was;
  }
}
