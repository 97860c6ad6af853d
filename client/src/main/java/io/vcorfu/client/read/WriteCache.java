package io.vcorfu.client.read;

import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The entries this client appended, kept after their append committed, by stream and stream
 * address, so that reading back one's own writes needs no request.
 *
 * <p>Serving a read from here is exact: an entry is put only once it is committed on its whole
 * chain, and a committed slot never changes (write-once), so the cached entry is the one every
 * replica returns. Typical use is a local view of an object this client updates: its next sync
 * finds the stream's new entries here instead of reading them from the stream replica.
 *
 * <p>Bounded by {@code capacityBytes} (payload bytes plus a fixed per-entry overhead, counted once
 * per stream of the entry); the oldest entries are evicted first. A capacity of 0 disables the
 * cache. Payload arrays are copied in and handed out shared: callers must not modify them.
 * Thread-safe.
 */
public final class WriteCache {
  /** Accounted per cached (stream, address) besides its payload: map nodes, the entry record. */
  static final int ENTRY_OVERHEAD_BYTES = 96;

  private final long capacityBytes;
  private final Map<StreamId, NavigableMap<Long, StreamEntry>> byStream = new HashMap<>();
  private final ArrayDeque<StreamEntry> oldestFirst = new ArrayDeque<>();
  private long bytes;

  public WriteCache(long capacityBytes) {
    if (capacityBytes < 0) {
      throw new IllegalArgumentException(
          "write cache capacity must be >= 0 bytes, got " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
  }

  /**
   * Records a committed data entry: {@code payload} at {@code globalAddress}, in each stream at its
   * address.
   */
  public void put(Map<StreamId, Long> streamAddresses, long globalAddress, byte[] payload) {
    long size = payload.length + (long) ENTRY_OVERHEAD_BYTES;
    if (capacityBytes == 0 || size * streamAddresses.size() > capacityBytes) {
      return;
    }
    byte[] copy = payload.clone();
    synchronized (this) {
      for (Map.Entry<StreamId, Long> slot : streamAddresses.entrySet()) {
        StreamEntry e = new StreamEntry(slot.getKey(), slot.getValue(), globalAddress, false, copy);
        StreamEntry old =
            byStream
                .computeIfAbsent(e.stream(), s -> new TreeMap<>())
                .putIfAbsent(e.streamAddress(), e);
        if (old == null) {
          oldestFirst.addLast(e);
          bytes += size;
        }
      }
      while (bytes > capacityBytes) {
        evict(oldestFirst.removeFirst());
      }
    }
  }

  /**
   * The cached entries of {@code stream} at consecutive stream addresses {@code from}, {@code from
   * + 1}, ... up to {@code to} inclusive, stopping at the first address not cached (empty when
   * {@code from} is not).
   */
  public synchronized List<StreamEntry> run(StreamId stream, long from, long to) {
    NavigableMap<Long, StreamEntry> entries = byStream.get(stream);
    if (entries == null || from > to) {
      return List.of();
    }
    List<StreamEntry> out = new ArrayList<>();
    for (long a = from; a <= to; a++) {
      StreamEntry e = entries.get(a);
      if (e == null) {
        break;
      }
      out.add(e);
    }
    return out;
  }

  /**
   * Forgets the entries of {@code stream} below stream address {@code before} (the stream was
   * trimmed there).
   */
  public synchronized void trim(StreamId stream, long before) {
    NavigableMap<Long, StreamEntry> entries = byStream.get(stream);
    if (entries == null) {
      return;
    }
    NavigableMap<Long, StreamEntry> below = entries.headMap(before, false);
    for (StreamEntry e : below.values()) {
      bytes -= e.payload().length + (long) ENTRY_OVERHEAD_BYTES;
    }
    below.clear();
    oldestFirst.removeIf(e -> e.stream().equals(stream) && e.streamAddress() < before);
    if (entries.isEmpty()) {
      byStream.remove(stream);
    }
  }

  /** Bytes currently accounted. */
  public synchronized long bytes() {
    return bytes;
  }

  private void evict(StreamEntry e) {
    NavigableMap<Long, StreamEntry> entries = byStream.get(e.stream());
    if (entries != null && entries.remove(e.streamAddress(), e)) {
      bytes -= e.payload().length + (long) ENTRY_OVERHEAD_BYTES;
      if (entries.isEmpty()) {
        byStream.remove(e.stream());
      }
    }
  }
}
