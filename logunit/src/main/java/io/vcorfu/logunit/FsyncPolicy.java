package io.vcorfu.logunit;

/**
 * When a durable replica forces its segment file to stable storage, and therefore when the future
 * of a mutating call completes.
 */
public enum FsyncPolicy {
  /**
   * Group commit: writers hand records to one writer thread, which appends a batch and forces it
   * once; every future completes only after the force that covers its record. Nothing acknowledged
   * is lost on a crash of the process or the machine.
   */
  ALWAYS,
  /**
   * Futures complete once the record is written to the operating system; the file is forced every
   * {@link StorageOptions#fsyncInterval()}, and before a segment is deleted (so the trim that
   * covers it is durable first). A process crash loses nothing, but a machine crash or power loss
   * can lose the acknowledged writes of the last interval. The thread that asks for a barrier
   * writes what is queued itself when no other thread is writing, so its future is complete when
   * the call returns (see {@code SegmentWriter}).
   */
  INTERVAL,
  /**
   * Never forces except on close and before deleting a segment; callers write as under {@link
   * #INTERVAL}. For tests and benchmarks: a machine crash can lose any amount of acknowledged
   * writes.
   */
  NONE
}
