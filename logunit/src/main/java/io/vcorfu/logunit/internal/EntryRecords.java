package io.vcorfu.logunit.internal;

import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import java.util.zip.CRC32C;

/**
 * How the replicas turn an entry into a stored record: its keys in the storage engine, its
 * serialized bytes (size-checked) and its content identity, which tells a re-drive of the same
 * entry from a different entry at the same address.
 */
public final class EntryRecords {
  private EntryRecords() {}

  /**
   * An entry as a replica stores it: its serialized bytes, content hash, digest (see {@link
   * ChainDigests}; null unless DATA) and the bytes' CRC32C, computed once per entry.
   */
  public record Prepared(LogEntryMsg entry, byte[] bytes, int hash, byte[] digest, int crc) {}

  /** The last entry this thread prepared: the steps of one chain write share it. */
  private static final ThreadLocal<Prepared> LAST = new ThreadLocal<>();

  /**
   * {@code entry} prepared for storing (TooLargeException when it exceeds the engine's limit); the
   * same answer again, not computed again, for the same entry object on the same thread.
   */
  public static Prepared prepare(StorageEngine engine, LogEntryMsg entry) {
    Prepared p = LAST.get();
    if (p != null && p.entry() == entry) {
      return p;
    }
    byte[] bytes = serialize(engine, entry);
    p =
        new Prepared(
            entry,
            bytes,
            contentHash(entry),
            entry.getKind() == EntryKind.DATA ? ChainDigests.ofEntry(bytes) : null,
            crc32c(bytes));
    LAST.set(p);
    return p;
  }

  /** The CRC32C of {@code bytes}. */
  public static int crc32c(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }

  public static long[] key(StreamId ns, long address) {
    return new long[] {ns.msb(), ns.lsb(), address};
  }

  /**
   * Identity of an entry's content, ignoring the writer's epoch: a repairer re-driving the same
   * entry matches it, a different entry with the same address does not.
   */
  public static int contentHash(LogEntryMsg entry) {
    if (entry.getNonce() != 0) {
      return nonceHash(entry.getNonce());
    }
    CRC32C crc = new CRC32C();
    crc.update(entry.toBuilder().clearEpoch().build().toByteArray());
    return (int) crc.getValue();
  }

  /**
   * The identity of an entry written with a writer nonce: a writer never reuses a nonce, so equal
   * global address and nonce mean the same write attempt (a re-drive), and an abort-fill naming the
   * nonce can only abort that attempt, never another entry given the same address later.
   */
  public static int nonceHash(long nonce) {
    long h = nonce * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** The serialized entry, or TooLargeException when it exceeds the engine's limit. */
  public static byte[] serialize(StorageEngine engine, LogEntryMsg entry) {
    byte[] bytes = entry.toByteArray();
    int limit = engine.options().maxEntrySize();
    if (bytes.length > limit) {
      throw new TooLargeException(bytes.length, limit);
    }
    return bytes;
  }

  /**
   * {@code keys}' (msb, lsb, address) triples flattened into one array, as the engine takes them.
   */
  public static long[] flatten(java.util.List<long[]> keys) {
    long[] out = new long[keys.size() * 3];
    for (int i = 0; i < keys.size(); i++) {
      System.arraycopy(keys.get(i), 0, out, i * 3, 3);
    }
    return out;
  }
}
