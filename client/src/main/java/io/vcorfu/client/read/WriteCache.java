package io.vcorfu.client.read;

import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

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
 *
 * <p>Costs: a put, a lookup per address of a run and an eviction are O(1) (a hash map per stream
 * and one queue of every entry oldest first); a trim is O(the stream's cached entries): the entries
 * it drops stay in the queue, marked dead, until they reach its head or a compaction of the queue
 * (when dead entries outnumber live ones) removes them, so no operation walks every stream's
 * entries. An entry put below a stream's trim mark (an append whose commit is reported after the
 * trim) is not kept.
 */
public final class WriteCache {
  /** Accounted per cached (stream, address) besides its payload: map nodes, the entry record. */
  static final int ENTRY_OVERHEAD_BYTES = 96;

  private final long capacityBytes;

  /** Compaction of {@link #oldestFirst} waits for at least this many dead entries. */
  static final int MIN_DEAD_TO_COMPACT = 1024;

  private final Map<StreamId, Map<Long, StreamEntry>> byStream = new HashMap<>();

  /** Each stream's trim mark: entries below it are not kept. */
  private final Map<StreamId, Long> trimmedBelow = new HashMap<>();

  /** Every entry put, oldest first; also the dead ones (trimmed) not yet dropped from it. */
  private final ArrayDeque<StreamEntry> oldestFirst = new ArrayDeque<>();

  private int dead;
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
        if (slot.getValue() < trimmedBelow.getOrDefault(slot.getKey(), 0L)) {
          continue;
        }
        StreamEntry e = new StreamEntry(slot.getKey(), slot.getValue(), globalAddress, false, copy);
        StreamEntry old =
            byStream
                .computeIfAbsent(e.stream(), s -> new HashMap<>())
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
    Map<Long, StreamEntry> entries = byStream.get(stream);
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
    trimmedBelow.merge(stream, before, Math::max);
    Map<Long, StreamEntry> entries = byStream.get(stream);
    if (entries == null) {
      return;
    }
    Iterator<StreamEntry> it = entries.values().iterator();
    while (it.hasNext()) {
      StreamEntry e = it.next();
      if (e.streamAddress() < before) {
        it.remove();
        bytes -= e.payload().length + (long) ENTRY_OVERHEAD_BYTES;
        dead++;
      }
    }
    if (entries.isEmpty()) {
      byStream.remove(stream);
    }
    if (dead >= MIN_DEAD_TO_COMPACT && dead > oldestFirst.size() - dead) {
      oldestFirst.removeIf(e -> !live(e));
      dead = 0;
    }
  }

  /** How many entries the queue of oldest-first entries holds, dead ones included (for tests). */
  synchronized int queued() {
    return oldestFirst.size();
  }

  private boolean live(StreamEntry e) {
    Map<Long, StreamEntry> entries = byStream.get(e.stream());
    return entries != null && entries.get(e.streamAddress()) == e;
  }

  /** Bytes currently accounted. */
  public synchronized long bytes() {
    return bytes;
  }

  private void evict(StreamEntry e) {
    if (!live(e)) {
      dead--;
      return;
    }
    Map<Long, StreamEntry> entries = byStream.get(e.stream());
    entries.remove(e.streamAddress());
    bytes -= e.payload().length + (long) ENTRY_OVERHEAD_BYTES;
    if (entries.isEmpty()) {
      byStream.remove(e.stream());
    }
  }
}
