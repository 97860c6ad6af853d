package io.vcorfu.client.tails;

import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's side of a read lease (see the sequencer's {@code ReadLeases}): while the lease is
 * valid, tail queries for the streams it covers are answered from what this client knows, with no
 * request, and stay linearizable.
 *
 * <p>The sequencer pushes every token it issues to lease holders, and releases no response that
 * reveals a token to anyone (this client included) before every other holder has applied it. So,
 * while the lease is valid, the known tail of a <em>covered</em> stream includes every write that
 * has been acknowledged or observed before the query. The converse matters as much: a pushed token
 * may not be known to the other holders yet, and answering with it would let this client observe a
 * write that another holder, asked a moment later, still misses. So an answer from memory may use
 * only tokens at or below the <em>stable point</em> ({@link #stable}: every other holder has
 * applied every token up to it, as the sequencer last said); a tail newer than that is asked for.
 *
 * <p>A stream becomes covered when a tail answer for it arrives for a request sent under the
 * current lease incarnation (so every later token is pushed); the global tail is covered likewise,
 * by the first tail answer under it. Every stream is uncovered again when an answer names a new
 * incarnation: the sequencer had let the lease run out (or restarted) and pushed nothing meanwhile.
 *
 * <p>The lease is kept by one long-polling request at a time: every answer carries every token not
 * acknowledged yet (so a lost answer loses nothing), and the next request acknowledges it and
 * renews the lease. The lease is counted from when the request was sent, and used only until a
 * safety margin before its end. Renewal stops after {@link #IDLE_STOP} without a tail query, and
 * resumes with the next one.
 *
 * <p>Thread-safe.
 */
public final class ReadLease {
  private static final Logger LOG = LoggerFactory.getLogger(ReadLease.class);

  /** No renewal after this long without a tail query. */
  static final Duration IDLE_STOP = Duration.ofSeconds(10);

  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** Where the lease's requests go and where pushed tails are recorded. */
  public interface Channel {
    CompletableFuture<ReadLeaseResponse> request(int leaseMs, long applied);

    /** Ends the lease at the sequencer. */
    CompletableFuture<ReadLeaseResponse> release();

    /** Records one stream's tail (and its last entry's global address) learnt from a push. */
    void learnStream(StreamId stream, long tail, long lastGlobal);

    /** Records the global tail learnt from a push, after its streams. */
    void learnGlobal(long globalTail);

    /** Runs {@code task} after {@code delayNanos}. */
    void schedule(Runnable task, long delayNanos);
  }

  private final Channel channel;
  private final int leaseMs;
  private final LongSupplier nanoTime;
  private final Set<StreamId> covered = ConcurrentHashMap.newKeySet();
  // Orders covering streams against a fresh lease clearing them.
  private final Object coverLock = new Object();
  // Written by the one renewal in flight (at most one is), read by any thread.
  private volatile long validUntil;
  private volatile long generation;
  private volatile long lastUse;
  // Whether the known global tail is covered: set by the first tail answer under the current lease.
  private volatile boolean globalCovered;
  // The incarnation of the lease the covered streams were learnt under (0: none yet). Guarded by
  // coverLock.
  private long incarnation;
  // Every other holder has applied every token up to here (monotonic: it only ever grows).
  private final AtomicLong stable = new AtomicLong(-1);
  // Guarded by this:
  private long applied = -1;
  private boolean renewing;
  private boolean closed;

  public ReadLease(Channel channel, Duration lease, LongSupplier nanoTime) {
    if (lease.toMillis() < 10 || lease.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a read lease must be at least 10 ms, got " + lease);
    }
    this.channel = channel;
    this.leaseMs = (int) lease.toMillis();
    this.nanoTime = nanoTime;
    this.validUntil = nanoTime.getAsLong();
  }

  /**
   * True when tail queries for {@code streams} may be answered from memory now: the lease is valid
   * and covers each of them. Starts the lease (or resumes renewing it) if it is not held.
   */
  public boolean covers(Collection<StreamId> streams) {
    long now = nanoTime.getAsLong();
    lastUse = now;
    if (validUntil - now <= 0) {
      ensureRenewing();
      return false;
    }
    if (!globalCovered) {
      return false;
    }
    for (StreamId s : streams) {
      if (!covered.contains(s)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The lease generation if the lease is valid now, else -1. A tail request sent after this
   * returned a generation may cover its streams with {@link #learnt} once answered.
   */
  public long generationIfValid() {
    return validUntil - nanoTime.getAsLong() > 0 ? generation : -1;
  }

  /** {@code streams}' tails were answered by a request sent under lease generation {@code gen}. */
  public void learnt(long gen, Collection<StreamId> streams) {
    if (gen < 0) {
      return;
    }
    synchronized (coverLock) {
      if (gen == generation) {
        covered.addAll(streams);
        // Every tail answer carries the global tail too.
        globalCovered = true;
      }
    }
  }

  /**
   * Uncovers every stream: what this client knows may not cover tokens issued from now on, as when
   * the sequencer that granted the lease left the layout or restarted. Streams are covered again by
   * tail answers to requests sent after this call under a valid lease, exactly as under a new
   * incarnation.
   */
  public void uncoverAll() {
    synchronized (coverLock) {
      generation++;
      covered.clear();
      globalCovered = false;
    }
  }

  /**
   * The stable point: every other lease holder has applied every token up to this global address. A
   * tail known from a token above it must not be answered from memory.
   */
  public long stable() {
    return stable.get();
  }

  /** Whether this client currently holds a usable lease (for tests and diagnostics). */
  public boolean valid() {
    return validUntil - nanoTime.getAsLong() > 0;
  }

  /** Streams currently answered from memory (for tests and diagnostics). */
  public int coveredStreams() {
    return covered.size();
  }

  /**
   * Stops using and renewing the lease and ends it at the sequencer, so that other clients' writes
   * do not wait for it to run out; waits up to {@code wait} for the sequencer to confirm.
   */
  public void close(Duration wait) {
    boolean held;
    synchronized (this) {
      closed = true;
      held = renewing;
    }
    validUntil = nanoTime.getAsLong();
    if (held) {
      try {
        channel.release().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        LOG.debug("could not release the read lease: {}", e.toString());
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private void ensureRenewing() {
    synchronized (this) {
      if (renewing || closed) {
        return;
      }
      renewing = true;
    }
    send();
  }

  private void send() {
    long sentAt = nanoTime.getAsLong();
    long ack;
    synchronized (this) {
      ack = applied;
    }
    channel.request(leaseMs, ack).whenComplete((r, e) -> answered(sentAt, r, e));
  }

  /**
   * Applies the tokens an answer to this client carried because it has not acknowledged them (see
   * the sequencer's {@code ReadLeases.pushFor}): before the answer itself is seen, so that every
   * covered stream's tail is at least as new as the global tail the answer reveals.
   */
  public void pushedWithAnswer(ReadLeaseResponse push) {
    learn(push);
  }

  /**
   * Records pushed tails: streams first, then the global tail, then the stable point, so a reader
   * that reads them in the opposite order never pairs a stable point with older tails. The answer
   * carries every token not acknowledged, so after it this client knows every token up to its
   * global tail, and acknowledges that.
   */
  private void learn(ReadLeaseResponse r) {
    for (int i = 0; i < r.getStreamsCount(); i++) {
      channel.learnStream(
          StreamId.fromMsg(r.getStreams(i)), r.getStreamTails(i), r.getStreamLastGlobal(i));
    }
    if (r.getGlobalTail() >= 0) {
      channel.learnGlobal(r.getGlobalTail());
      synchronized (this) {
        applied = Math.max(applied, r.getGlobalTail());
      }
    }
    stable.accumulateAndGet(r.getStable(), Math::max);
  }

  private void answered(long sentAt, ReadLeaseResponse r, Throwable error) {
    if (error == null) {
      synchronized (coverLock) {
        if (r.getIncarnation() != incarnation) {
          // A new lease (the sequencer had let the last one end, or restarted): tokens issued in
          // between were not pushed, so nothing learnt before is covered.
          incarnation = r.getIncarnation();
          generation++;
          covered.clear();
          globalCovered = false;
          synchronized (this) {
            // Acknowledge only what this incarnation's answers carried: a restarted sequencer may
            // issue an address again that an earlier one had pushed.
            applied = -1;
          }
        }
      }
      // Streams before the global tail: a reader that sees the new global tail sees these too.
      learn(r);
      if (r.getLeaseMs() > 0) {
        validUntil = sentAt + usableNanos(r.getLeaseMs());
      }
    } else {
      LOG.debug("read lease request failed: {}", EpochRpc.unwrap(error).toString());
    }
    long now = nanoTime.getAsLong();
    synchronized (this) {
      if (closed || now - lastUse > IDLE_STOP.toNanos()) {
        renewing = false;
        return;
      }
    }
    if (error == null) {
      send();
    } else {
      channel.schedule(this::send, RETRY_NANOS);
    }
  }

  /**
   * How much of a granted lease the client uses: it stops a tenth of it (at least 5 ms) before the
   * end, for clock-rate differences between client and sequencer.
   */
  private static long usableNanos(int grantedMs) {
    long nanos = TimeUnit.MILLISECONDS.toNanos(grantedMs);
    return nanos - Math.max(nanos / 10, TimeUnit.MILLISECONDS.toNanos(5));
  }
}
