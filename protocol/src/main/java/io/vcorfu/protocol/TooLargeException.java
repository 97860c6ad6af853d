package io.vcorfu.protocol;

/** An entry or frame larger than the configured limit. */
public final class TooLargeException extends VCorfuException {
  private final long size;
  private final long limit;

  public long size() {
    return size;
  }

  public long limit() {
    return limit;
  }

  public TooLargeException(long size, long limit) {
    super("entry of " + size + " bytes exceeds the limit of " + limit + " bytes");
    this.size = size;
    this.limit = limit;
  }
}
