package io.vcorfu.client;

import io.vcorfu.protocol.VCorfuException;

/**
 * An append whose chain write failed and whose outcome could not then be learned from the replica
 * that decides it, not even from the decider of a newer layout within the failover timeout: the
 * entry may or may not have committed. Retrying the append may write it twice; reading the log (the
 * entry's global address is given) tells which it was once the replicas answer again.
 */
public final class AppendOutcomeUnknownException extends VCorfuException {
  private final long globalAddress;

  public AppendOutcomeUnknownException(long globalAddress, Throwable cause) {
    this(globalAddress, cause, null);
  }

  /**
   * {@code retried}, if not null, says how the append retried before it gave up ({@code retried for
   * 30.0 s across epochs 3..4 ...}).
   */
  public AppendOutcomeUnknownException(long globalAddress, Throwable cause, String retried) {
    super(
        "append at global address "
            + globalAddress
            + " may or may not have committed: its write "
            + "failed and the replica that decides it could not be asked"
            + (retried == null ? "" : " (" + retried + ")")
            + " ("
            + describe(cause)
            + ")",
        cause);
    this.globalAddress = globalAddress;
  }

  /** The global address the entry was written at. */
  public long globalAddress() {
    return globalAddress;
  }

  private static String describe(Throwable cause) {
    return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
  }
}
