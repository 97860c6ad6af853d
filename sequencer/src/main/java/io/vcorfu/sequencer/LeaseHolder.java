package io.vcorfu.sequencer;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * Sequencer state of one read-lease holder: its lease, what it has acknowledged, and the tokens it
 * has not. Guarded by the enclosing {@link ReadLeases}: every access is made holding its monitor.
 *
 * <p>Every answer to a holder carries <em>all</em> the tokens it has not acknowledged ({@link
 * #tokens}), not just those since the last answer, which is why an acknowledgement ({@code
 * applied}) covers every token up to it. Each record has an {@link #incarnation} of its own (never
 * 0) carried by every answer: a client that sees a new incarnation forgets what its memory covered.
 */
final class LeaseHolder {
  private static final SecureRandom RANDOM = new SecureRandom();

  final StreamId client;
  final long incarnation = newIncarnation();
  long expiresAt;
  // Every token up to here is known to the client (acknowledged, or issued before the lease).
  long applied;
  // Tokens not acknowledged yet, pushed or not: every answer to this holder carries them all.
  long unackedGlobal = -1;
  final Map<StreamId, long[]> unackedStreams = new HashMap<>();
  // The highest token pushed in a lease answer, and the highest stable point sent.
  long pushedTop = -1;
  long sentStable = -1;
  CompletableFuture<ReadLeaseResponse> parked;
  ScheduledFuture<?> parkTimer;
  int leaseMs;

  LeaseHolder(StreamId client) {
    this.client = client;
  }

  boolean live(long now) {
    return expiresAt - now > 0;
  }

  /** Pushed tokens the client may not answer from memory yet, waiting for the stable point. */
  boolean waitsForStable() {
    return sentStable < pushedTop;
  }

  /** Records token {@code t}, just issued, as not acknowledged yet. */
  void unacked(Token t) {
    unackedGlobal = Math.max(unackedGlobal, t.getGlobalAddress());
    for (StreamSlot slot : t.getSlotsList()) {
      merge(
          unackedStreams,
          StreamId.fromMsg(slot.getStream()),
          slot.getStreamAddress(),
          t.getGlobalAddress());
    }
  }

  /** Forgets the tokens the client acknowledged ({@link #applied} and below). */
  void forgetAcknowledged() {
    if (applied >= unackedGlobal) {
      unackedGlobal = -1;
      unackedStreams.clear();
    } else {
      unackedStreams.values().removeIf(v -> v[1] <= applied);
    }
  }

  /**
   * Every token this holder has not acknowledged. Streams go by id alone, without their names: the
   * client keys the tails it learns by id and never sends a pushed id on, and a push rides on every
   * answer that reveals tokens, so names would be most of its bytes.
   */
  ReadLeaseResponse.Builder tokens() {
    ReadLeaseResponse.Builder b = ReadLeaseResponse.newBuilder().setGlobalTail(unackedGlobal);
    for (Map.Entry<StreamId, long[]> e : unackedStreams.entrySet()) {
      b.addStreams(e.getKey().toIdOnlyMsg())
          .addStreamTails(e.getValue()[0])
          .addStreamLastGlobal(e.getValue()[1]);
    }
    return b;
  }

  private static void merge(
      Map<StreamId, long[]> into, StreamId stream, long tail, long lastGlobal) {
    long[] v = into.computeIfAbsent(stream, s -> new long[] {-1, -1});
    if (tail > v[0]) {
      v[0] = tail;
      v[1] = lastGlobal;
    }
  }

  private static long newIncarnation() {
    long id;
    do {
      id = RANDOM.nextLong();
    } while (id == 0);
    return id;
  }
}
