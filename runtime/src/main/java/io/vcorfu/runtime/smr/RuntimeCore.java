package io.vcorfu.runtime.smr;

import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.client.NameDirectory;
import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.runtime.RuntimeClosedException;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.tx.Transactions;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * State shared by everything one runtime opened: the stream log, the options, the open/closed flag.
 */
public final class RuntimeCore implements LogAccess {
  private final StreamLog log;
  private final RuntimeOptions options;
  private final HistoryBudget historyBudget;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Transactions transactions;
  private final Object owner;
  private final StreamLabels labels = new StreamLabels();
  private final NameDirectory names;

  /**
   * {@code owner} is the public runtime these internals belong to (null in tests of internals),
   * kept as an {@code Object} so that the core does not name the runtime built on it.
   */
  public RuntimeCore(StreamLog log, RuntimeOptions options, Object owner) {
    this.log = log;
    this.options = options;
    this.historyBudget = new HistoryBudget(options.retainedHistoryBytes());
    this.owner = owner;
    this.transactions = new Transactions(this);
    this.names = new NameDirectory(log);
  }

  @Override
  public StreamLabels labels() {
    return labels;
  }

  /** The cluster's name directory, as this runtime reads and registers it. */
  public NameDirectory names() {
    return names;
  }

  /**
   * Registers {@code entry} in the name directory unless this runtime knows it is there (see {@link
   * NameDirectory#register}); waits for it like any stream-log call.
   */
  public void register(DirectoryEntry entry) {
    checkOpen();
    await(names.register(entry));
  }

  /** The public runtime these internals belong to, as given to the constructor. */
  public Object owner() {
    return owner;
  }

  @Override
  public StreamLog log() {
    return log;
  }

  @Override
  public RuntimeOptions options() {
    return options;
  }

  public Transactions transactions() {
    return transactions;
  }

  /** Fails with {@link RuntimeClosedException} once the runtime is closed. */
  @Override
  public void checkOpen() {
    if (closed.get()) {
      throw new RuntimeClosedException(
          "this vcorfu runtime is closed; open a new one to use objects again");
    }
  }

  /** Marks the runtime closed; true on the first call only. */
  public boolean markClosed() {
    return closed.compareAndSet(false, true);
  }

  /**
   * Waits for a stream-log future within the I/O timeout, rethrowing its failure unwrapped (typed
   * vcorfu errors stay typed).
   */
  @Override
  public <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(options.ioTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new VCorfuException("interrupted while waiting for the stream log", e);
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new RpcTimeoutException(
          "the stream log did not answer within " + options.ioTimeout(), e);
    } catch (CancellationException e) {
      throw new VCorfuException("the stream-log request was cancelled", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof java.util.concurrent.CompletionException c && c.getCause() != null) {
        cause = c.getCause(); // a stage's wrapper: the failure is what it wraps
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new VCorfuException("the stream log failed: " + cause, cause);
    }
  }

  /** The memory the live views of this runtime share for old versions. */
  HistoryBudget historyBudget() {
    return historyBudget;
  }

  /** Estimated bytes the live views of this runtime hold for old versions now. */
  public long oldVersionBytes() {
    return historyBudget.used();
  }
}
