package io.vcorfu.sequencer;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.protocol.proto.TailResponse;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The server-facing, thread-safe front of a {@link Sequencer}: any number of threads submit token,
 * tail and bootstrap requests; each is applied to the sequencer exactly once, in one total order,
 * and completes its future with the response or the typed error ({@link
 * io.vcorfu.protocol.TokenRefusedException}, {@link io.vcorfu.protocol.BadRequestException}, {@link
 * NotServingException} before the first bootstrap or after {@link #close}). Nobody retries on the
 * caller's behalf.
 *
 * <p>Two ways to serialize access, chosen at construction:
 *
 * <ul>
 *   <li>{@link Mode#LOCKED} (the default): the calling thread applies its request under one lock
 *       and gets an already completed future; no request changes threads. Measured in-process on a
 *       2-core machine shared with other load, 8 caller threads, one stream per token ({@code
 *       SequencerThroughput} in the tests, after warm-up): 1.5 to 2.4 million tokens/s for callers
 *       that wait for each reply and about 1.5 million/s for callers keeping 128 requests
 *       outstanding, against 0.1 and 1.0 million/s for {@link Mode#BATCHED}, whose per-request
 *       thread handoff dominates.
 *   <li>{@link Mode#BATCHED}: requests go into a lock-free multi-producer queue drained in batches
 *       by one dedicated thread (parked when idle) to which the sequencer state is confined.
 *       Futures complete on that thread, so dependent stages must not block (use the {@code *Async}
 *       variants for slow work). Useful when callers must never run sequencer work themselves.
 * </ul>
 */
public final class SequencerService implements AutoCloseable {
  /** How requests are serialized onto the sequencer. */
  public enum Mode {
    /** Caller thread, one lock. */
    LOCKED,
    /** One drainer thread, lock-free queue, batches. */
    BATCHED
  }

  private static final int BATCH = 256;
  private static final int SPINS = 64;

  private final Sequencer sequencer;
  private final Mode mode;
  // LOCKED mode: guards every access to the sequencer.
  private final ReentrantLock lock = new ReentrantLock();
  // BATCHED mode: the sequencer is confined to the drainer thread.
  private final ConcurrentLinkedQueue<Op<?>> queue = new ConcurrentLinkedQueue<>();
  private final Thread drainer;
  private volatile boolean sleeping;
  private volatile boolean closed;
  // Tail requests held until a stream moves (confined like the sequencer; see TailWaits).
  private final TailWaits waits = new TailWaits();
  // Called with every token response, in issue order (see onIssued).
  private volatile IssueListener issuedListener = (last, tokens, requester) -> {};

  /** Told of tokens as they are issued (see {@link #onIssued}). */
  @FunctionalInterface
  public interface IssueListener {
    /**
     * Tokens were just issued, the highest at global address {@code last}, for the client {@code
     * requester} (null when unknown); {@code tokens} gives them with their stream slots, made only
     * when asked for.
     */
    void issued(long last, java.util.function.Supplier<List<Token>> tokens, StreamId requester);
  }

  /** A service in {@link Mode#LOCKED} mode. The sequencer must not be used by anyone else. */
  public SequencerService(Sequencer sequencer) {
    this(sequencer, Mode.LOCKED);
  }

  /** A service in the given mode. The sequencer must not be used by anyone else. */
  public SequencerService(Sequencer sequencer, Mode mode) {
    this.sequencer = Objects.requireNonNull(sequencer, "sequencer");
    this.mode = Objects.requireNonNull(mode, "mode");
    if (mode == Mode.BATCHED) {
      drainer = new Thread(this::drain, "sequencer-drainer");
      drainer.setDaemon(true);
      drainer.start();
    } else {
      drainer = null;
    }
  }

  public Mode mode() {
    return mode;
  }

  /**
   * Issues tokens (see {@link Sequencer#issue}); a request with {@code batch} set is issued request
   * by request, in one turn of the sequencer (see {@link Sequencer#issueBatch}).
   */
  public CompletableFuture<TokenResponse> token(TokenRequest request) {
    return token(request, null, null);
  }

  /**
   * {@link #token(TokenRequest)} whose tokens this node writes itself: the held tail requests
   * (watches) the issuance answers are delivered once {@code written} completes, however it does
   * (see {@link TailWaits}); null delivers them at once. {@code requester} is the client the tokens
   * go to (null when unknown), for the read leases (see {@link ReadLeases#issued}).
   */
  public CompletableFuture<TokenResponse> token(
      TokenRequest request, CompletableFuture<?> written, StreamId requester) {
    if (!request.getPacked().isEmpty()) {
      return submit(
          s -> {
            TokenResponse r = s.issuePacked(request);
            long last = PackedTokens.lastAddress(r.getPacked());
            if (last >= 0) {
              issuedListener.issued(
                  last, () -> PackedTokens.tokens(request.getPacked(), r.getPacked()), requester);
              waits.issued(s, written);
            }
            return r;
          });
    }
    if (request.getBatchCount() > 0) {
      return submit(
          s -> {
            TokenResponse r = s.issueBatch(request, x -> tell(x, requester));
            waits.issued(s, written);
            return r;
          });
    }
    return submit(
        s -> {
          TokenResponse r = s.issue(request);
          tell(r, requester);
          waits.issued(s, written);
          return r;
        });
  }

  private void tell(TokenResponse r, StreamId requester) {
    long last = PackedTokens.lastAddress(r);
    if (last >= 0) {
      issuedListener.issued(last, r::getTokensList, requester);
    }
  }

  /**
   * Calls {@code listener} with every batch of tokens, in the order they were issued, before the
   * response is returned (for {@link ReadLeases#issued}). Set it before serving requests.
   */
  public void onIssued(IssueListener listener) {
    this.issuedListener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Reads the tails (see {@link Sequencer#tails}). A request with marks ({@code past_stream_tails},
   * one per stream) is held until some requested stream's tail passes its mark or {@code wait_ms}
   * (at most {@value TailWaits#MAX_WAIT_MS} ms) runs out, and then answered with the tails of that
   * moment (see {@link TailWaits}).
   */
  public CompletableFuture<TailResponse> tail(TailRequest request) {
    if (request.getPastStreamTailsCount() == 0) {
      return submit(s -> s.tails(request));
    }
    if (request.getPastStreamTailsCount() != request.getStreamsCount()) {
      return CompletableFuture.failedFuture(
          new BadRequestException(
              "a held tail request gives one mark per stream: "
                  + request.getStreamsCount()
                  + " streams, "
                  + request.getPastStreamTailsCount()
                  + " marks"));
    }
    TailWaits.Held h = new TailWaits.Held(request);
    long waitMs = Math.min(Integer.toUnsignedLong(request.getWaitMs()), TailWaits.MAX_WAIT_MS);
    submit(s -> waits.holdUnlessPassed(h, s))
        .whenComplete(
            (held, error) -> {
              if (error != null) {
                h.answer.completeExceptionally(error);
              } else if (held) {
                CompletableFuture.delayedExecutor(waitMs, TimeUnit.MILLISECONDS)
                    .execute(() -> expire(h));
              }
              waits.completeDue();
            });
    return h.answer;
  }

  private void expire(TailWaits.Held h) {
    submit(
            s -> {
              waits.expire(h, s);
              return null;
            })
        .whenComplete(
            (v, error) -> {
              if (error != null) {
                h.answer.completeExceptionally(error);
              }
              waits.completeDue();
            });
  }

  /** Every stream's tail as the sequencer knows it (see {@link Sequencer#streamTails}). */
  public CompletableFuture<Map<StreamId, StreamTail>> streamTails() {
    return submit(Sequencer::streamTails);
  }

  /** Bootstraps the sequencer, ordered after every request submitted before it. */
  public CompletableFuture<Void> bootstrap(long globalTail, Map<StreamId, StreamTail> streamTails) {
    Map<StreamId, StreamTail> copy = Map.copyOf(streamTails);
    return submit(
        s -> {
          s.bootstrap(globalTail, copy);
          waits.issued(s);
          return null;
        });
  }

  /** Bootstraps the sequencer at a new epoch (see {@link Sequencer#bootstrap(long, long, Map)}). */
  public CompletableFuture<Void> bootstrap(
      long epoch, long globalTail, Map<StreamId, StreamTail> streamTails) {
    Map<StreamId, StreamTail> copy = Map.copyOf(streamTails);
    return submit(
        s -> {
          s.bootstrap(epoch, globalTail, copy);
          waits.issued(s);
          return null;
        });
  }

  /**
   * Moves the sequencer to a later epoch keeping its tails (see {@link Sequencer#advanceEpoch}),
   * ordered after every request submitted before it.
   */
  public CompletableFuture<Void> advanceEpoch(long newEpoch) {
    return submit(
        s -> {
          s.advanceEpoch(newEpoch);
          return null;
        });
  }

  /**
   * Stops serving: requests not yet applied, and all later ones, fail with {@link
   * NotServingException}. Waits for the drainer thread to finish its current batch.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    if (drainer == null) {
      lock.lock();
      try {
        closed = true;
        waits.failAll(closedError());
      } finally {
        lock.unlock();
      }
      waits.completeDue();
      return;
    }
    closed = true;
    LockSupport.unpark(drainer);
    boolean interrupted = false;
    while (drainer.isAlive()) {
      try {
        drainer.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    for (Op<?> op; (op = queue.poll()) != null; ) {
      op.future.completeExceptionally(closedError());
    }
    waits.failAll(closedError());
    waits.completeDue();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private <T> CompletableFuture<T> submit(Function<Sequencer, T> work) {
    if (closed) {
      return CompletableFuture.failedFuture(closedError());
    }
    if (mode == Mode.LOCKED) {
      T result;
      lock.lock();
      try {
        if (closed) {
          return CompletableFuture.failedFuture(closedError());
        }
        assert lock.isHeldByCurrentThread();
        result = work.apply(sequencer);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      } finally {
        lock.unlock();
        waits.completeDue();
      }
      return CompletableFuture.completedFuture(result);
    }
    Op<T> op = new Op<>(work);
    queue.offer(op);
    if (sleeping) {
      sleeping = false;
      LockSupport.unpark(drainer);
    }
    if (closed && queue.remove(op)) {
      op.future.completeExceptionally(closedError());
    }
    return op.future;
  }

  private void drain() {
    while (!closed) {
      Op<?> op = queue.poll();
      if (op == null) {
        idle();
        continue;
      }
      int n = 0;
      do {
        assert Thread.currentThread() == drainer
            : "sequencer state touched outside its drainer thread";
        op.run(sequencer);
      } while (++n < BATCH && (op = queue.poll()) != null);
      waits.completeDue();
    }
  }

  private void idle() {
    for (int i = 0; i < SPINS; i++) {
      if (!queue.isEmpty() || closed) {
        return;
      }
      Thread.onSpinWait();
    }
    sleeping = true;
    if (queue.isEmpty() && !closed) {
      LockSupport.park(this);
    }
    sleeping = false;
  }

  private static NotServingException closedError() {
    return new NotServingException("sequencer");
  }

  private static final class Op<T> {
    final Function<Sequencer, T> work;
    final CompletableFuture<T> future = new CompletableFuture<>();

    Op(Function<Sequencer, T> work) {
      this.work = work;
    }

    void run(Sequencer s) {
      T result;
      try {
        result = work.apply(s);
      } catch (RuntimeException e) {
        future.completeExceptionally(e);
        return;
      }
      future.complete(result);
    }
  }
}
