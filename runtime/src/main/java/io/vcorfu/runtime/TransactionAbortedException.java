package io.vcorfu.runtime;

import io.vcorfu.protocol.StreamId;

/**
 * A transaction did not commit; none of its writes reached the log. For a conflict, {@link
 * #stream()}, {@link #conflictKey()} and {@link #conflictAddress()} say what was written after the
 * snapshot and where; {@link #getCause()} is the sequencer's refusal ({@link
 * io.vcorfu.protocol.TokenRefusedException}) or the read failure that made the snapshot unusable.
 */
public final class TransactionAbortedException extends RuntimeException {

  /** Why the transaction aborted. */
  public enum Reason {
    /** Something the transaction read was written after its snapshot. */
    CONFLICT,
    /**
     * The sequencer could not judge the snapshot (failover, evicted key) and refused
     * conservatively.
     */
    SNAPSHOT_TOO_OLD,
    /**
     * The sequencer restarted since the snapshot was taken: tokens issued before the restart were
     * fenced and addresses may be issued again, so the snapshot cannot be judged. A retry takes a
     * fresh snapshot.
     */
    SEQUENCER_RESTARTED,
    /**
     * An object read by the transaction cannot be served as of the snapshot (its history is
     * trimmed).
     */
    TRIMMED,
    /**
     * The sequencer granted the commit, but its entry was aborted on its chain before it committed:
     * a replica failed part-way through the write (a failover), or a reader repaired the entry's
     * slot as a hole because the writer was slower than the repair bound. Nothing was written; a
     * retry takes a fresh snapshot and is judged again.
     */
    COMMIT_ABORTED
  }

  private final Reason reason;
  private final long snapshot;
  private final StreamId stream;
  private final byte[] conflictKey;
  private final long conflictAddress;

  public TransactionAbortedException(
      Reason reason,
      long snapshot,
      StreamId stream,
      byte[] conflictKey,
      long conflictAddress,
      String message,
      Throwable cause) {
    super(message, cause);
    this.reason = reason;
    this.snapshot = snapshot;
    this.stream = stream;
    this.conflictKey = conflictKey == null ? new byte[0] : conflictKey.clone();
    this.conflictAddress = conflictAddress;
  }

  public Reason reason() {
    return reason;
  }

  /** The transaction's snapshot (global address). */
  public long snapshot() {
    return snapshot;
  }

  /** The stream that conflicted or could not be read; null when the caller aborted. */
  public StreamId stream() {
    return stream;
  }

  /**
   * The serialized conflict key inside {@link #stream()}; empty when the whole object conflicted.
   */
  public byte[] conflictKey() {
    return conflictKey.clone();
  }

  /** Global address of the conflicting write; -1 when unknown or not a conflict. */
  public long conflictAddress() {
    return conflictAddress;
  }
}
