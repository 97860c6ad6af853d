package io.vcorfu.protocol;

/**
 * A replica's copy of an entry whose bytes no longer match the SHA-256 digest the replica stored
 * when it wrote it (see {@link ChainDigests}): the copy was altered or damaged on disk. The replica
 * refuses to serve it; a reader reads the entry from another replica of its chain.
 */
public final class DamagedEntryException extends VCorfuException {
  private final StreamId stream;
  private final long address;

  /** Address {@code address} of {@code stream} (of the global log when null). */
  public DamagedEntryException(StreamId stream, long address) {
    super(
        "this replica's copy of "
            + (stream == null
                ? "global address " + address
                : "stream " + stream + " address " + address)
            + " does not match the digest stored when it was written (altered or damaged on"
            + " disk); read it from another replica, and see vcorfu log verify");
    this.stream = stream;
    this.address = address;
  }

  /** The stream, or null for the global log. */
  public StreamId stream() {
    return stream;
  }

  /** The damaged address. */
  public long address() {
    return address;
  }
}
