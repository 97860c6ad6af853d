package io.vcorfu.runtime.tx;

import io.vcorfu.client.AppendAbortedException;
import io.vcorfu.client.AppendResult;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.TransactionAbortedException.Reason;
import io.vcorfu.runtime.TransactionStateException;
import io.vcorfu.runtime.smr.LogAccess;
import io.vcorfu.runtime.smr.UpcallRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactions of one runtime: one optional open transaction per thread. Thread-safe; each
 * transaction is confined to the thread that began it.
 */
public final class Transactions {
  private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);

  private final LogAccess core;
  private final ThreadLocal<TxContext> current = new ThreadLocal<>();
  private final Map<Thread, TxContext> open = new ConcurrentHashMap<>();

  /**
   * For each thread between asking for its snapshot and listing its transaction as open, a lower
   * bound of that snapshot: the newest snapshot a transaction of this runtime had received when it
   * asked (the sequencer's tail only grows, a restarted sequencer's aside, and then a version
   * dropped too early is only rebuilt by replay).
   */
  private final Map<Thread, Long> beginning = new ConcurrentHashMap<>();

  private final AtomicLong newestSnapshot = new AtomicLong();
  private final List<String> abandoned = new ArrayList<>();

  /** The transactions of the runtime whose core is {@code core}. */
  public Transactions(LogAccess core) {
    this.core = core;
  }

  /**
   * The oldest snapshot of the transactions open in this runtime; {@link Long#MAX_VALUE} if none.
   */
  public long oldestOpenSnapshot() {
    return oldestSnapshot(true);
  }

  /**
   * The oldest global address an open transaction of this runtime may read as of: the oldest
   * snapshot of its open transactions, and for a transaction still taking its snapshot a lower
   * bound of it; {@link Long#MAX_VALUE} if none. A view's captured version whose successor is at or
   * below it serves no open transaction (see {@code CapturedVersions}). Cheap: called after every
   * update a view of a {@code VersionCapturing} object applies.
   */
  public long versionsFloor() {
    long floor = oldestSnapshot(false);
    if (!beginning.isEmpty()) {
      for (long bound : beginning.values()) {
        floor = Math.min(floor, bound);
      }
    }
    return floor;
  }

  /** The oldest snapshot of the open transactions (of live threads only, if {@code alive}). */
  private long oldestSnapshot(boolean alive) {
    long oldest = Long.MAX_VALUE;
    if (!open.isEmpty()) {
      for (Map.Entry<Thread, TxContext> e : open.entrySet()) {
        if (!alive || e.getKey().isAlive()) {
          oldest = Math.min(oldest, e.getValue().snapshot);
        }
      }
    }
    return oldest;
  }

  /** The calling thread's open transaction, or null. */
  public TxContext current() {
    return current.get();
  }

  public boolean inTransaction() {
    return current.get() != null;
  }

  /** Begins a transaction, or an inner level of the open one. */
  public void begin() {
    begin(false);
  }

  private void begin(boolean readOnly) {
    core.checkOpen();
    TxContext tx = current.get();
    if (tx != null) {
      tx.beginLevel();
      return;
    }
    sweepDeadThreads();
    // The epoch is read first: the snapshot then comes from that epoch or a later one, so a
    // sequencer restarted since the snapshot always sees an older epoch and refuses the commit.
    long epoch = core.log().epoch();
    Thread me = Thread.currentThread();
    beginning.put(me, newestSnapshot.get());
    try {
      long snapshot = core.await(core.log().tails(List.of())).globalTail();
      newestSnapshot.accumulateAndGet(snapshot, Math::max);
      tx = new TxContext(me, snapshot, epoch, readOnly);
      current.set(tx);
      open.put(me, tx);
    } finally {
      beginning.remove(me);
    }
  }

  /**
   * Ends the calling thread's transaction level. An inner level hands its writes to the level
   * around it and returns -1 (the outermost decides); the outermost commits and returns the
   * commit's global address, or the snapshot when it wrote nothing (no request is sent then).
   */
  public long end() {
    TxContext tx = requireOpen("TXEnd");
    if (tx.depth() > 1) {
      tx.endLevel();
      return -1;
    }
    finish(tx);
    if (!tx.hasWrites()) {
      return tx.snapshot;
    }
    core.checkOpen();
    try {
      AppendResult r =
          core.await(
              core.log().appendConditional(tx.writeStreams(), tx.commitPayload(), tx.resolution()));
      return r.globalAddress();
    } catch (TokenRefusedException e) {
      Reason reason =
          switch (e.refusal()) {
            case SNAPSHOT_TOO_OLD -> Reason.SNAPSHOT_TOO_OLD;
            case SEQUENCER_RESTARTED -> Reason.SEQUENCER_RESTARTED;
            case CONFLICT -> Reason.CONFLICT;
          };
      throw new TransactionAbortedException(
          reason,
          tx.snapshot,
          e.stream(),
          e.conflictKey(),
          e.conflictAddress(),
          "the transaction with snapshot " + tx.snapshot + " aborted: " + refusal(e),
          e);
    } catch (AppendAbortedException e) {
      // The commit entry became a hole: nothing of the transaction reached the log.
      throw new TransactionAbortedException(
          Reason.COMMIT_ABORTED,
          tx.snapshot,
          null,
          null,
          -1,
          "the transaction with snapshot " + tx.snapshot + " aborted: its commit " + e.getMessage(),
          e);
    }
  }

  /**
   * Why the sequencer refused the commit, the stream named as the runtime knows it ({@code map
   * 'users' key 'alice'}, see {@link io.vcorfu.runtime.smr.StreamLabels}).
   */
  private String refusal(TokenRefusedException e) {
    if (e.refusal() == TokenRefusedException.Cause.CONFLICT) {
      return core.labels().describe(e.stream(), e.conflictKey())
          + " was written at global address "
          + e.conflictAddress()
          + " after the snapshot";
    }
    return e.getMessage().replace("stream " + e.stream(), core.labels().describe(e.stream()));
  }

  /**
   * Aborts the calling thread's transaction level. At the outermost level the transaction is
   * discarded; an inner level's writes are dropped and the level around it goes on.
   */
  public void abort() {
    TxContext tx = requireOpen("TXAbort");
    if (tx.depth() > 1) {
      tx.abortLevel();
      return;
    }
    finish(tx);
  }

  private TxContext requireOpen(String call) {
    TxContext tx = current.get();
    if (tx == null) {
      throw new TransactionStateException(
          call
              + " was called on thread "
              + Thread.currentThread().getName()
              + ", which has no open transaction; call TXBegin first");
    }
    return tx;
  }

  private void finish(TxContext tx) {
    current.remove();
    open.remove(tx.owner);
  }

  /** Discards the calling thread's transaction, whatever its depth. */
  private void discard() {
    TxContext tx = current.get();
    if (tx != null) {
      finish(tx);
    }
  }

  /**
   * Runs {@code body} in a transaction. Inside an open transaction it runs as an inner level: its
   * writes join the open transaction when it returns, and are dropped when it throws (the exception
   * is rethrown; a conflict surfaces when the outermost level commits). Otherwise aborts are
   * retried, with exponential backoff and jitter, up to the configured number of attempts; the last
   * abort is then thrown. Aborts a retry cannot fix (a trimmed history) are thrown at once. Any
   * other exception from {@code body} aborts the transaction and is rethrown.
   */
  public <T> T run(Supplier<T> body) {
    return runCallable(body::get, false);
  }

  /** Runs a {@code @TransactionalMethod} body like {@link #run}. */
  public Object runMethod(boolean readOnly, Callable<Object> body) throws Exception {
    return runCallable(body, readOnly);
  }

  private <T> T runCallable(Callable<T> body, boolean readOnly) {
    TxContext open = current.get();
    if (open != null) {
      open.beginLevel();
      int level = open.depth();
      try {
        T value = call(body);
        closeLevels(open, level, false);
        return value;
      } catch (Throwable e) {
        closeLevels(open, level, true);
        throw UpcallRunner.sneakyThrow(e);
      }
    }
    int attempts = core.options().maxTransactionAttempts();
    for (int attempt = 1; ; attempt++) {
      begin(readOnly);
      try {
        T value = call(body);
        end();
        return value;
      } catch (TransactionAbortedException e) {
        discard();
        if (attempt >= attempts || e.reason() == Reason.TRIMMED) {
          throw e;
        }
        LOG.debug("Transaction attempt {} aborted, retrying: {}", attempt, e.getMessage());
        backoff(attempt);
      } catch (Throwable e) {
        // Includes checked exceptions a @TransactionalMethod body declares (rethrown unwrapped).
        discard();
        throw UpcallRunner.sneakyThrow(e);
      }
    }
  }

  /**
   * Closes {@code tx}'s levels down to and including {@code level} (a body may leave levels of its
   * own open), aborting them or ending them; nothing if the transaction is no longer open there.
   */
  private void closeLevels(TxContext tx, int level, boolean abort) {
    if (current.get() != tx) {
      return;
    }
    while (tx.depth() >= level && tx.depth() > 1) {
      if (abort) {
        tx.abortLevel();
      } else {
        tx.endLevel();
      }
    }
  }

  private static <T> T call(Callable<T> body) {
    try {
      return body.call();
    } catch (Exception e) {
      throw UpcallRunner.sneakyThrow(e);
    }
  }

  private void backoff(int attempt) {
    long initial = core.options().backoffInitial().toNanos();
    long max = core.options().backoffMax().toNanos();
    long pause = Math.min(max, initial << Math.min(attempt - 1, 30));
    pause += ThreadLocalRandom.current().nextLong(pause / 2 + 1);
    try {
      TimeUnit.NANOSECONDS.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TransactionStateException(
          "interrupted while backing off before retrying a transaction");
    }
  }

  private synchronized void sweepDeadThreads() {
    for (Map.Entry<Thread, TxContext> e : open.entrySet()) {
      if (!e.getKey().isAlive() && open.remove(e.getKey(), e.getValue())) {
        String what =
            "thread "
                + e.getKey().getName()
                + " ended with a transaction open (snapshot "
                + e.getValue().snapshot
                + "); its buffered writes were discarded";
        LOG.warn("{}", what);
        abandoned.add(what);
      }
    }
  }

  /**
   * Called when the runtime closes: fails with {@link TransactionStateException} naming every
   * thread that ended (or is still running) with a transaction open.
   */
  public synchronized void checkNoneLeftOpen() {
    sweepDeadThreads();
    List<String> problems = new ArrayList<>(abandoned);
    for (Map.Entry<Thread, TxContext> e : open.entrySet()) {
      problems.add(
          "thread "
              + e.getKey().getName()
              + " still has a transaction open (snapshot "
              + e.getValue().snapshot
              + ")");
    }
    abandoned.clear();
    if (!problems.isEmpty()) {
      throw new TransactionStateException(
          "transactions were left open: " + String.join("; ", problems));
    }
  }
}
