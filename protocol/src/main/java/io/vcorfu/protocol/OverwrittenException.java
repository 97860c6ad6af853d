package io.vcorfu.protocol;

/** Write-once violation: the address or stream slot already holds another entry or a fill. */
public final class OverwrittenException extends VCorfuException {
  private final long address;
  private final StreamId stream;
  private final boolean holdsHole;
  private final long holderGlobalAddress;

  /** Global address, or stream address when {@link #stream()} is not null. */
  public long address() {
    return address;
  }

  public StreamId stream() {
    return stream;
  }

  public boolean holdsHole() {
    return holdsHole;
  }

  /** Global address of the entry that holds the slot, or -1. */
  public long holderGlobalAddress() {
    return holderGlobalAddress;
  }

  public OverwrittenException(
      long address, StreamId stream, boolean holdsHole, long holderGlobalAddress) {
    super(
        (stream == null ? "global address " + address : "stream " + stream + " address " + address)
            + " is already written"
            + (holdsHole ? " (filled as a hole)" : ""));
    this.address = address;
    this.stream = stream;
    this.holdsHole = holdsHole;
    this.holderGlobalAddress = holderGlobalAddress;
  }
}
