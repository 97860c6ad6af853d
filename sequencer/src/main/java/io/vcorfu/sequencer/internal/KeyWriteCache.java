package io.vcorfu.sequencer.internal;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import java.util.HashMap;

/**
 * The last write address of each (stream, key), bounded to a capacity. Entries are kept in write
 * order, so the entry evicted first is the one written longest ago; its address is handed to the
 * eviction listener, which keeps a conservative per-stream watermark. Not thread-safe.
 *
 * <p>A write of a remembered key costs one hash lookup: the entries are also linked in write order
 * (oldest first), and a rewrite moves its entry to the young end in place.
 */
public final class KeyWriteCache {
  /** Told about every evicted key's stream and last write address. */
  public interface EvictionListener {
    void evicted(StreamId stream, long address);
  }

  private record Key(StreamId stream, ByteString key) {}

  /** One remembered key: its last write and its neighbours in write order. */
  private static final class Entry {
    final Key key;
    long address;
    Entry older;
    Entry newer;

    Entry(Key key, long address) {
      this.key = key;
      this.address = address;
    }
  }

  private final int capacity;
  private final EvictionListener listener;
  private final HashMap<Key, Entry> writes;
  // The entry written longest ago and the one written last; null when the cache is empty.
  private Entry oldest;
  private Entry newest;

  public KeyWriteCache(int capacity, EvictionListener listener) {
    if (capacity < 1) {
      throw new IllegalArgumentException("key cache capacity must be >= 1, got " + capacity);
    }
    this.capacity = capacity;
    this.listener = listener;
    this.writes = new HashMap<>(Math.min(capacity, 1 << 16));
  }

  /** The last recorded write address of the key, or -1 if the cache does not hold it. */
  public long lastWrite(StreamId stream, ByteString key) {
    Entry e = writes.get(new Key(stream, key));
    return e == null ? -1 : e.address;
  }

  /** Records a write of the key at {@code address} (addresses only grow). */
  public void recordWrite(StreamId stream, ByteString key, long address) {
    Key k = new Key(stream, key);
    Entry e = writes.get(k);
    if (e != null) {
      e.address = address;
      if (e != newest) {
        unlink(e);
        append(e);
      }
      return;
    }
    e = new Entry(k, address);
    writes.put(k, e);
    append(e);
    if (writes.size() > capacity) {
      Entry evicted = oldest;
      unlink(evicted);
      writes.remove(evicted.key);
      listener.evicted(evicted.key.stream(), evicted.address);
    }
  }

  public int size() {
    return writes.size();
  }

  public void clear() {
    writes.clear();
    oldest = null;
    newest = null;
  }

  private void append(Entry e) {
    e.older = newest;
    e.newer = null;
    if (newest == null) {
      oldest = e;
    } else {
      newest.newer = e;
    }
    newest = e;
  }

  private void unlink(Entry e) {
    if (e.older == null) {
      oldest = e.newer;
    } else {
      e.older.newer = e.newer;
    }
    if (e.newer == null) {
      newest = e.older;
    } else {
      e.newer.older = e.older;
    }
    e.older = null;
    e.newer = null;
  }
}
