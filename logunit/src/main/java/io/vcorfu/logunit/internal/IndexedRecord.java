package io.vcorfu.logunit.internal;

/**
 * A snapshot of one record's index fields, taken under the engine's monitor. {@code payload} is set
 * in memory mode; in durable mode the bytes are read with {@link
 * StorageEngine#load(IndexedRecord)}. {@code digest} is the entry's SHA-256 digest the replica
 * computed when it stored it (see {@code ChainDigests}), null for holes and for records stored
 * before digests were. {@code crc} is the CRC32C of the payload's bytes as received or as found to
 * match the digest (0: not known yet).
 */
public record IndexedRecord(
    long address,
    byte flags,
    long global,
    int hash,
    long pos,
    int len,
    byte[] payload,
    byte[] digest,
    int crc) {

  public boolean committed() {
    return (flags & StorageEngine.COMMITTED) != 0;
  }

  public boolean hole() {
    return (flags & StorageEngine.HOLE) != 0;
  }
}
