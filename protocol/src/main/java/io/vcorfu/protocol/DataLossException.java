package io.vcorfu.protocol;

/**
 * A read of a global address whose entry was lost: every replica of its log chain was lost, the
 * chain was rebuilt from the stream replicas, and none of them held an entry for the address (see
 * {@code EntryKind.LOST}). It held an entry written to no stream, or nothing that was ever
 * acknowledged; which of the two can no longer be told. Entries of streams are not lost this way
 * while a replica of their stream chain survives.
 */
public final class DataLossException extends VCorfuException {
  private final long address;
  private final StreamId stream;

  /**
   * Slot {@code address} of {@code stream}: the stream's chain was lost and taken up again from the
   * log, and the slot's token lay at a log address whose entry was lost.
   */
  public DataLossException(StreamId stream, long address) {
    super(
        "address "
            + address
            + " of stream "
            + stream
            + " may have held an entry lost with every replica of its stream chain and of the log"
            + " chain of its global address");
    this.address = address;
    this.stream = stream;
  }

  public DataLossException(long address) {
    super(
        "global address "
            + address
            + " was lost with every replica of its log chain: no stream replica holds an entry"
            + " for it, so it held an entry written to no stream (lost) or nothing acknowledged");
    this.address = address;
    this.stream = null;
  }

  /** The lost address: a global address, or a slot of {@link #stream()}. */
  public long address() {
    return address;
  }

  /** The stream whose slot was lost; null for a global address. */
  public StreamId stream() {
    return stream;
  }
}
