package io.vcorfu.client.tails;

import io.vcorfu.client.Tails;
import io.vcorfu.client.layout.Failover;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.TailResponse;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one client knows of the tails: the highest tail seen per stream (with the global address of
 * the entry there) and the highest global tail, learnt from tail answers, its own appends and the
 * tokens a read lease pushes. Answers tail queries ({@code check}) through the {@link TailBatcher},
 * or from memory while a {@link ReadLease} covers them. Thread-safe.
 */
public final class TailKnowledge {
  private final ReplicaClient ops;
  private final TailBatcher tailBatcher = new TailBatcher(this::sendTail);

  /**
   * Highest stream tail this client has seen per stream, with the global address of the entry
   * there; reads never go past it (no fills beyond a tail).
   */
  private final Map<StreamId, KnownTail> knownTails = new ConcurrentHashMap<>();

  private final AtomicLong knownGlobalTail = new AtomicLong(-1);

  /** The read lease, or null when none is asked for. */
  private final ReadLease lease;

  /**
   * The epoch the sequencer answered the last lease request in: the lease's knowledge comes from
   * that epoch (a sequencer of a later epoch starts every lease afresh).
   */
  private final AtomicLong leaseEpoch = new AtomicLong(0);

  /** A stream's tail and the global address of its entry there. */
  private record KnownTail(long tail, long lastGlobal) {
    static final KnownTail NONE = new KnownTail(-1, -1);
  }

  /**
   * Tails asked of the sequencer through {@code ops}; a read lease of {@code readLease} unless 0.
   */
  public TailKnowledge(ReplicaClient ops, Duration readLease) {
    this.ops = ops;
    this.lease =
        readLease.isZero()
            ? null
            : new ReadLease(
                new ReadLease.Channel() {
                  @Override
                  public CompletableFuture<ReadLeaseResponse> request(int leaseMs, long applied) {
                    return ops.readLease(leaseMs, applied, TailKnowledge.this::leaseAnsweredAt)
                        .whenComplete(
                            (r, error) -> {
                              if (error != null && Failover.retryable(error, true)) {
                                // The sequencer may be gone: learn the layout that names its
                                // successor, which stops answering from this lease's memory and
                                // sends the next renewal there.
                                ops.rpc().layout().refresh();
                              }
                            });
                  }

                  @Override
                  public CompletableFuture<ReadLeaseResponse> release() {
                    return ops.releaseReadLease();
                  }

                  @Override
                  public void learnStream(StreamId stream, long tail, long lastGlobal) {
                    learn(stream, tail, lastGlobal);
                  }

                  @Override
                  public void learnGlobal(long globalTail) {
                    learnGlobalTail(globalTail);
                  }

                  @Override
                  public void schedule(Runnable task, long delayNanos) {
                    CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS)
                        .execute(task);
                  }
                },
                readLease,
                System::nanoTime);
    if (lease != null) {
      ops.rpc().onLeasePush(lease::pushedWithAnswer);
    }
  }

  /**
   * A lease request was answered by the sequencer of {@code epoch}. An answer from a later epoch
   * than the lease's knowledge uncovers every stream before the epoch is recorded, so no tail query
   * sees the new epoch paired with coverage learnt under the old one.
   */
  private void leaseAnsweredAt(long epoch) {
    if (epoch > leaseEpoch.get()) {
      lease.uncoverAll();
    }
    leaseEpoch.accumulateAndGet(epoch, Math::max);
  }

  /**
   * Records that {@code stream}'s tail is at least {@code tail}, its entry there at {@code
   * lastGlobal}.
   */
  public void learn(StreamId stream, long tail, long lastGlobal) {
    knownTails.merge(
        stream, new KnownTail(tail, lastGlobal), (old, now) -> now.tail() > old.tail() ? now : old);
  }

  /** Records that the log's global tail is at least {@code globalTail}. */
  public void learnGlobalTail(long globalTail) {
    knownGlobalTail.accumulateAndGet(globalTail, Math::max);
  }

  /** The highest tail of {@code stream} this client has seen (-1 if none). */
  public long knownTail(StreamId stream) {
    return known(stream).tail();
  }

  /** The highest global tail this client has seen (-1 if none). */
  public long knownGlobalTail() {
    return knownGlobalTail.get();
  }

  private KnownTail known(StreamId stream) {
    return knownTails.getOrDefault(stream, KnownTail.NONE);
  }

  /**
   * The epoch to report given the layout's {@code current} one: while a read lease answers tails
   * from memory, no later than the epoch that lease's knowledge comes from, so a snapshot answered
   * from a lease granted before a sequencer restart is never labelled with the epoch after it.
   */
  public long epoch(long current) {
    return lease != null && lease.valid() ? Math.min(current, leaseEpoch.get()) : current;
  }

  /**
   * The tails of {@code streams} ({@link io.vcorfu.client.StreamLog#tails}).
   *
   * <p>Concurrent calls share requests (see {@link TailBatcher}): at most one tail request is in
   * flight, and every call is answered by a request sent after the call began, so the tails are
   * never older than those that existed when the call was made.
   *
   * <p>With a read lease that covers every stream asked for, the answer comes from memory with no
   * request, and is just as current (see {@link ReadLease}). Only while the lease's knowledge comes
   * from the epoch of the layout this client holds, or a later one: once the client has learnt a
   * newer layout (the sequencer that granted the lease may be gone, and a new one issues tokens
   * this client is not told of), tails are asked for until a sequencer of the new epoch has renewed
   * the lease, which uncovers every stream (see {@link ReadLease#uncoverAll}).
   */
  public CompletableFuture<Tails> tails(Collection<StreamId> streams) {
    if (lease == null) {
      return tailBatcher.tails(streams);
    }
    long knowledgeEpoch = leaseEpoch.get();
    boolean current = knowledgeEpoch >= ops.rpc().layout().current().epoch();
    if (lease.covers(streams) && current) {
      Tails known = stableKnownTails(streams);
      if (known != null && leaseEpoch.get() == knowledgeEpoch) {
        return CompletableFuture.completedFuture(known);
      }
    }
    long generation = lease.generationIfValid();
    return tailBatcher
        .tails(streams)
        .thenApply(
            t -> {
              lease.learnt(generation, streams);
              return t;
            });
  }

  /**
   * The tails this client knows, if every token they come from is at or below the lease's stable
   * point (every other holder knows it too), else null: answering with a newer token would reveal a
   * write another holder may still miss (see {@link ReadLease}). Read in the opposite order to how
   * they are learnt (stable point, global tail, stream tails), so every stream tail is at least as
   * new as the global tail. With streams asked for, the global tail answered is capped at the
   * stable point: every entry of those streams up to it is within their tails, and every later one
   * lies beyond it.
   */
  private Tails stableKnownTails(Collection<StreamId> streams) {
    long stable = lease.stable();
    long global = knownGlobalTail.get();
    if (streams.isEmpty()) {
      return global <= stable ? new Tails(global, Map.of(), Map.of()) : null;
    }
    Map<StreamId, Long> tails = new HashMap<>();
    Map<StreamId, Long> lastGlobal = new HashMap<>();
    for (StreamId s : streams) {
      KnownTail k = known(s);
      if (k.lastGlobal() > stable) {
        return null;
      }
      tails.put(s, k.tail());
      lastGlobal.put(s, k.lastGlobal());
    }
    return new Tails(Math.min(global, stable), tails, lastGlobal);
  }

  /** Whether this client holds a usable read lease now. */
  public boolean holdsReadLease() {
    return lease != null && lease.valid();
  }

  /** Sends one tail request and records the tails it reports, before any caller sees them. */
  private CompletableFuture<TailResponse> sendTail(List<StreamId> streams) {
    return ops.tail(streams)
        .thenApply(
            t -> {
              int n =
                  Math.min(
                      streams.size(),
                      Math.min(t.getStreamTailsCount(), t.getStreamLastGlobalCount()));
              for (int i = 0; i < n; i++) {
                learn(streams.get(i), t.getStreamTails(i), t.getStreamLastGlobal(i));
              }
              learnGlobalTail(t.getGlobalTail());
              return t;
            });
  }

  /** Ends the read lease, waiting up to {@code wait} for the sequencer to take it back. */
  public void close(Duration wait) {
    if (lease != null) {
      lease.close(wait);
    }
  }
}
