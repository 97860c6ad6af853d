package io.vcorfu.client;

import io.vcorfu.protocol.VCorfuException;

/**
 * A read that had to repair a slot (finish or abort a write left incomplete) and could not finish
 * the repair, so it has no decided value to return. Nothing is returned rather than data that may
 * not be committed; reading again retries the repair.
 */
public final class RepairIncompleteException extends VCorfuException {
  private final long address;

  public RepairIncompleteException(long address, String what) {
    super(
        "the read of address "
            + address
            + " could not finish repairing it: "
            + what
            + "; read it again once the replicas answer");
    this.address = address;
  }

  /** The address (a stream address for stream reads, else a global address) left unrepaired. */
  public long address() {
    return address;
  }
}
