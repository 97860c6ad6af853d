package io.vcorfu.layout;

/**
 * A {@link LayoutStore#compareAndSet} lost: the stored version is not the one the caller expected.
 * The caller re-reads the store, re-decides and retries if its change still applies.
 */
public final class LayoutVersionMismatchException extends LayoutException {
  private final long expectedVersion;
  private final long actualVersion;

  public LayoutVersionMismatchException(long expectedVersion, long actualVersion) {
    super(
        "The layout store holds version "
            + actualVersion
            + " but the update expected version "
            + expectedVersion
            + "; someone else changed the layout first.");
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }

  /** The version the failed update expected. */
  public long expectedVersion() {
    return expectedVersion;
  }

  /** The version the store holds ({@link LayoutStore#NO_VERSION} when it holds nothing). */
  public long actualVersion() {
    return actualVersion;
  }
}
