package io.vcorfu.protocol;

/**
 * A node refused a write because the free space of its data directory's disk fell below its alarm
 * threshold. Nothing of the write was stored there. The alarm clears itself once space is freed
 * (streams trimmed, segments compacted, files removed); writes are then accepted again.
 */
public final class DiskFullException extends VCorfuException {
  private final long freeBytes;
  private final long thresholdBytes;
  private final String node;

  public long freeBytes() {
    return freeBytes;
  }

  public long thresholdBytes() {
    return thresholdBytes;
  }

  /** The node whose disk is full. */
  public String node() {
    return node;
  }

  public DiskFullException(String node, long freeBytes, long thresholdBytes) {
    super(
        "node "
            + node
            + " refuses writes: its data directory's disk has "
            + freeBytes
            + " bytes free, below the alarm threshold of "
            + thresholdBytes
            + "; free space there (trim streams, add disk) and writes resume on their own");
    this.node = node;
    this.freeBytes = freeBytes;
    this.thresholdBytes = thresholdBytes;
  }
}
