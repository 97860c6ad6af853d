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

  public DataLossException(long address) {
    super(
        "global address "
            + address
            + " was lost with every replica of its log chain: no stream replica holds an entry"
            + " for it, so it held an entry written to no stream (lost) or nothing acknowledged");
    this.address = address;
  }

  /** The global address whose entry was lost. */
  public long address() {
    return address;
  }
}
