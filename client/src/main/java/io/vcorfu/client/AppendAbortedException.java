package io.vcorfu.client;

import io.vcorfu.protocol.VCorfuException;

/**
 * An append whose entry was aborted by the chain (a reader repaired its slot as a hole because the
 * writer was slower than the repair bound) and could not be retried: conditional appends are not
 * retried, since a fresh token would be judged against the same snapshot.
 */
public final class AppendAbortedException extends VCorfuException {
  private final long globalAddress;

  public AppendAbortedException(long globalAddress, String why) {
    super("append at global address " + globalAddress + " was aborted: " + why);
    this.globalAddress = globalAddress;
  }

  public long globalAddress() {
    return globalAddress;
  }
}
