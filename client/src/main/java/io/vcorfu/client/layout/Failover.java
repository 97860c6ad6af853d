package io.vcorfu.client.layout;

import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.SealedException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.protocol.WrongEpochException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Carries operations through layout changes. An operation that fails with an error a newer layout
 * may cure (see {@link #retryable}) backs off (20 ms, doubling up to 500 ms), refreshes the layout
 * and runs again against the targets of the refreshed layout, until it succeeds or the failover
 * timeout has passed since it began; then it fails with its last error, of the same type, its
 * message saying for how long and across which epochs it retried.
 *
 * <p>Only the caller knows what may be run again: {@link #idempotent} runs a whole operation again
 * (reads, tails, fills, trims); the append path uses an {@link Operation} step by step (a token
 * request again, a decision again, never a written entry again). Thread-safe; an {@link Operation}
 * belongs to one operation, whose steps run one after another.
 */
public final class Failover {
  private static final TimeUnit NANOS = TimeUnit.NANOSECONDS;
  static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final LayoutCache layout;
  private final Duration timeout;
  private final LongSupplier nanoTime;

  /** Retries through refreshes of {@code layout} for up to {@code timeout} per operation. */
  public Failover(LayoutCache layout, Duration timeout) {
    this(layout, timeout, System::nanoTime);
  }

  Failover(LayoutCache layout, Duration timeout, LongSupplier nanoTime) {
    this.layout = layout;
    this.timeout = timeout;
    this.nanoTime = nanoTime;
  }

  /**
   * True for the errors a layout change may cure: a node that cannot be reached or whose connection
   * dropped ({@link TransportException}), a request stamped with an epoch the node no longer serves
   * ({@link WrongEpochException}), an entry whose token an epoch change fenced ({@link
   * SealedException}), a node that does not serve the role in its layout, or is sealed and waits
   * for its new layout ({@link NotServingException}); and, for a request that may be sent twice
   * ({@code idempotent}), no answer in time ({@link RpcTimeoutException}). Everything else (a
   * refused entry, a trimmed address, an unknown stream, a refused transaction) is the answer.
   */
  public static boolean retryable(Throwable error, boolean idempotent) {
    Throwable cause = EpochRpc.unwrap(error);
    return cause instanceof TransportException
        || cause instanceof WrongEpochException
        || cause instanceof SealedException
        || cause instanceof NotServingException
        || (idempotent && cause instanceof RpcTimeoutException);
  }

  /** The longest an operation retries. */
  public Duration timeout() {
    return timeout;
  }

  /**
   * Runs {@code op}, and runs it again while it fails with a {@link #retryable} error (timeouts
   * included: it must be safe to run twice) and the failover timeout has not passed. Each run calls
   * {@code op} afresh, so it computes its targets from the layout held then.
   */
  public <T> CompletableFuture<T> idempotent(Supplier<CompletableFuture<T>> op) {
    return runIdempotent(begin(), op);
  }

  private <T> CompletableFuture<T> runIdempotent(
      Operation operation, Supplier<CompletableFuture<T>> op) {
    CompletableFuture<T> attempt;
    try {
      attempt = op.get();
    } catch (RuntimeException e) {
      attempt = CompletableFuture.failedFuture(e);
    }
    return attempt
        .handle(
            (value, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(value);
              }
              Throwable cause = EpochRpc.unwrap(error);
              if (!retryable(cause, true)) {
                return CompletableFuture.<T>failedFuture(cause);
              }
              if (!operation.mayRetry()) {
                return CompletableFuture.<T>failedFuture(operation.giveUp(cause));
              }
              return operation.backOff().thenCompose(v -> runIdempotent(operation, op));
            })
        .thenCompose(f -> f);
  }

  /** Starts the failover clock of one operation. */
  public Operation begin() {
    return new Operation(nanoTime.getAsLong(), layout.current().epoch());
  }

  /** One operation's retries: when it began, how often it backed off, the epochs it saw. */
  public final class Operation {
    private final long startNanos;
    private final long firstEpoch;
    private long backoffNanos = FIRST_BACKOFF_NANOS;
    private int retries;

    private Operation(long startNanos, long firstEpoch) {
      this.startNanos = startNanos;
      this.firstEpoch = firstEpoch;
    }

    /** True while the failover timeout has not passed since the operation began. */
    public boolean mayRetry() {
      return nanoTime.getAsLong() - startNanos < timeout.toNanos();
    }

    /**
     * Waits the next back-off (never past the failover timeout), then refreshes the layout, waiting
     * for the refresh no longer than the time left. Never fails: a refresh that finds no server
     * leaves the layout as it was, and the next attempt tells.
     */
    public CompletableFuture<Void> backOff() {
      retries++;
      long left = timeout.toNanos() - (nanoTime.getAsLong() - startNanos);
      long wait = Math.max(0, Math.min(backoffNanos, left));
      backoffNanos = Math.min(MAX_BACKOFF_NANOS, backoffNanos * 2);
      return CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(wait, NANOS))
          .thenCompose(
              v -> {
                long remaining = timeout.toNanos() - (nanoTime.getAsLong() - startNanos);
                CompletableFuture<Layout> refreshed;
                try {
                  refreshed = layout.refresh();
                } catch (RuntimeException e) {
                  refreshed = CompletableFuture.failedFuture(e);
                }
                // The refresh is this operation's own future (see LayoutCache#refresh): bounding
                // the wait for it leaves other callers' waits alone.
                return refreshed
                    .handle((l, e) -> (Void) null)
                    .completeOnTimeout(null, Math.max(FIRST_BACKOFF_NANOS, remaining), NANOS);
              });
    }

    /** How many times the operation backed off so far. */
    public int retries() {
      return retries;
    }

    /** The epoch of the layout held when the operation began. */
    public long firstEpoch() {
      return firstEpoch;
    }

    /** What the operation did: {@code retried for 1.2 s across epochs 3..4}. */
    public String retried() {
      double seconds = (nanoTime.getAsLong() - startNanos) / 1e9;
      return String.format(
          Locale.ROOT,
          "retried for %.1f s across epochs %d..%d (failover timeout %s)",
          seconds,
          firstEpoch,
          layout.current().epoch(),
          describe(timeout));
    }

    /**
     * {@code last}, the error the operation gives up on, told with {@link #retried()}: an error of
     * the same type whose cause is {@code last}; {@code last} itself if the operation never retried
     * or the type has no such form.
     */
    public Throwable giveUp(Throwable last) {
      Throwable cause = EpochRpc.unwrap(last);
      if (retries == 0) {
        return cause;
      }
      String message = "gave up after it " + retried() + ": " + messageOf(cause);
      VCorfuException told;
      if (cause instanceof TransportException) {
        told = new TransportException(message, cause);
      } else if (cause instanceof RpcTimeoutException) {
        told = new RpcTimeoutException(message, cause);
      } else if (cause instanceof WrongEpochException w) {
        told = new WrongEpochException(w.requestEpoch(), w.currentEpoch(), message, cause);
      } else if (cause instanceof SealedException s) {
        told = new SealedException(s.sealedEpoch(), message, cause);
      } else if (cause instanceof NotServingException n) {
        told = new NotServingException(n.role(), message, cause);
      } else {
        return cause;
      }
      return told;
    }
  }

  private static String messageOf(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }

  private static String describe(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? (ms / 1000) + " s" : ms + " ms";
  }
}
