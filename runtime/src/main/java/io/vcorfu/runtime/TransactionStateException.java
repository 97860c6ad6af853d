package io.vcorfu.runtime;

/**
 * A transaction call out of order: {@code TXEnd} or {@code TXAbort} without {@code TXBegin} on this
 * thread, a mutator inside a read-only transaction, or a thread that ended with a transaction still
 * open (reported by {@link VCorfuRuntime#close()}).
 */
public final class TransactionStateException extends IllegalStateException {
  public TransactionStateException(String message) {
    super(message);
  }
}
