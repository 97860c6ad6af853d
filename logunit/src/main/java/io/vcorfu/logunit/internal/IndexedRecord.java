package io.vcorfu.logunit.internal;

/**
 * A snapshot of one record's index fields, taken under the engine's monitor. {@code payload} is set
 * in memory mode; in durable mode the bytes are read with {@link
 * StorageEngine#load(IndexedRecord)}.
 */
public record IndexedRecord(
    long address, byte flags, long global, int hash, long pos, int len, byte[] payload) {

  public boolean committed() {
    return (flags & StorageEngine.COMMITTED) != 0;
  }

  public boolean hole() {
    return (flags & StorageEngine.HOLE) != 0;
  }
}
