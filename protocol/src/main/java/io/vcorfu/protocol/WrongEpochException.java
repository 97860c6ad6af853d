package io.vcorfu.protocol;

/** The request was stamped with an epoch other than the server's current one. */
public final class WrongEpochException extends VCorfuException {
  private final long currentEpoch;
  private final long requestEpoch;

  public long currentEpoch() {
    return currentEpoch;
  }

  public long requestEpoch() {
    return requestEpoch;
  }

  public WrongEpochException(long requestEpoch, long currentEpoch) {
    super(
        "request carries epoch "
            + requestEpoch
            + " but the current layout epoch is "
            + currentEpoch
            + "; fetch the layout and retry");
    this.currentEpoch = currentEpoch;
    this.requestEpoch = requestEpoch;
  }

  /**
   * The same refusal told in {@code message}, caused by {@code cause} (for a client that retried
   * and reports the refusal it gave up on).
   */
  public WrongEpochException(
      long requestEpoch, long currentEpoch, String message, Throwable cause) {
    super(message, cause);
    this.currentEpoch = currentEpoch;
    this.requestEpoch = requestEpoch;
  }
}
