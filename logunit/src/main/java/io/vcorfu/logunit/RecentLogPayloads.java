package io.vcorfu.logunit;

import io.vcorfu.logunit.internal.IndexedRecord;
import java.util.Arrays;

/**
 * The payloads of the log records a node stored last, by global address, so that its stream replica
 * can index the same bytes instead of storing them again when the stream copy of an entry arrives
 * in a later message (a chain that visits the node's log replica, then another node, then its
 * stream replica). A remembered payload is offered only while the log still holds the very record
 * it was stored in (same segment position), so a shared copy is always byte for byte what the
 * stream write brought.
 *
 * <p>Bounded: {@value #SLOTS} addresses, payloads of at most {@value #MAX_BYTES} bytes. Guarded by
 * the storage engine's monitor.
 */
final class RecentLogPayloads {
  static final int SLOTS = 1024;
  static final int MAX_BYTES = 16 * 1024;

  private final long[] global = new long[SLOTS];
  private final long[] pos = new long[SLOTS];
  private final byte[][] bytes = new byte[SLOTS][];

  RecentLogPayloads() {
    Arrays.fill(global, -1);
  }

  /** Remembers that the log record {@code stored} at {@code address} holds {@code payload}. */
  void remember(long address, IndexedRecord stored, byte[] payload) {
    if (stored == null || payload.length > MAX_BYTES) {
      return;
    }
    int i = (int) (address & (SLOTS - 1));
    global[i] = address;
    pos[i] = stored.pos();
    bytes[i] = payload;
  }

  /**
   * True when {@code logRecord}, the log's record at {@code address} now, holds exactly {@code
   * payload}.
   */
  boolean holds(long address, IndexedRecord logRecord, byte[] payload) {
    if (logRecord == null || logRecord.hole() || logRecord.len() != payload.length) {
      return false;
    }
    if (logRecord.payload() != null) {
      return Arrays.equals(logRecord.payload(), payload); // in memory: the bytes are at hand
    }
    int i = (int) (address & (SLOTS - 1));
    return global[i] == address
        && pos[i] == logRecord.pos()
        && bytes[i] != null
        && Arrays.equals(bytes[i], payload);
  }
}
