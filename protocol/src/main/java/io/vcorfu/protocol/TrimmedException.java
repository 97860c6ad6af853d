package io.vcorfu.protocol;

/** A read or write below the trim mark. */
public final class TrimmedException extends VCorfuException {
  private final long trimMark;
  private final StreamId stream;

  /** Every address below this is trimmed. */
  public long trimMark() {
    return trimMark;
  }

  /** The trimmed stream, or null for the global log. */
  public StreamId stream() {
    return stream;
  }

  public TrimmedException(long trimMark, StreamId stream) {
    super(
        (stream == null ? "the global log" : "stream " + stream)
            + " is trimmed below address "
            + trimMark);
    this.trimMark = trimMark;
    this.stream = stream;
  }
}
