package io.vcorfu.protocol;

/** The sequencer refused a conditional token: something in the read set changed after the snapshot. */
public final class TokenRefusedException extends VCorfuException {
  private final StreamId stream;
  private final byte[] conflictKey;
  private final long conflictAddress;
  private final boolean snapshotTooOld;

  /** The stream whose read-set entry conflicted. */
  public StreamId stream() {
    return stream;
  }

  /** The conflicting key inside the stream; empty when the whole object conflicted. */
  public byte[] conflictKey() {
    return conflictKey.clone();
  }

  /** Global address of the conflicting write, or -1 when the refusal is conservative. */
  public long conflictAddress() {
    return conflictAddress;
  }

  /** True when the sequencer could not judge the snapshot (failover, evicted key) and refused conservatively. */
  public boolean snapshotTooOld() {
    return snapshotTooOld;
  }
  public TokenRefusedException(StreamId stream, byte[] conflictKey, long conflictAddress, boolean snapshotTooOld) {
    super((snapshotTooOld ? "snapshot too old to judge conflicts on stream " + stream : "stream " + stream + (conflictKey != null && conflictKey.length > 0 ? " key of " + conflictKey.length + " bytes" : "") + " was written at global address " + conflictAddress + " after the snapshot"));
    this.stream = stream;
    this.conflictKey = conflictKey == null ? new byte[0] : conflictKey.clone();
    this.conflictAddress = conflictAddress;
    this.snapshotTooOld = snapshotTooOld;
  }
}
