package io.vcorfu.protocol;

/**
 * The server refused a write because it has sealed the epoch the write's token was issued in
 * ({@code sealedEpoch} is the server's current epoch): the sequencer restarted (or the layout
 * changed) since the token was issued. The writer needs a fresh token.
 */
public final class SealedException extends VCorfuException {
  private final long sealedEpoch;

  public long sealedEpoch() {
    return sealedEpoch;
  }

  public SealedException(long sealedEpoch) {
    super(
        "the entry's token was issued before epoch "
            + sealedEpoch
            + " sealed it (the sequencer restarted or the layout changed since); take a fresh"
            + " token");
    this.sealedEpoch = sealedEpoch;
  }

  /**
   * The same refusal told in {@code message}, caused by {@code cause} (for a client that retried
   * and reports the refusal it gave up on).
   */
  public SealedException(long sealedEpoch, String message, Throwable cause) {
    super(message, cause);
    this.sealedEpoch = sealedEpoch;
  }
}
