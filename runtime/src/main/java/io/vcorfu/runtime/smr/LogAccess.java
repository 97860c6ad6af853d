package io.vcorfu.runtime.smr;

import io.vcorfu.client.StreamLog;
import io.vcorfu.runtime.RuntimeOptions;
import java.util.concurrent.CompletableFuture;

/**
 * What a runtime's transactions use of its {@link RuntimeCore}: the stream log, the options, the
 * open/closed state and waiting on the log. The core implements it and hands itself to the
 * transactions it holds as this, so that {@link io.vcorfu.runtime.tx.Transactions} does not name
 * the core that names it.
 */
public interface LogAccess {
  StreamLog log();

  RuntimeOptions options();

  /** Fails with {@link io.vcorfu.runtime.RuntimeClosedException} once the runtime is closed. */
  void checkOpen();

  /**
   * Waits for a stream-log future within the I/O timeout, rethrowing its failure unwrapped (typed
   * vcorfu errors stay typed).
   */
  <T> T await(CompletableFuture<T> future);

  /** How messages name the runtime's streams and their keys. */
  StreamLabels labels();
}
