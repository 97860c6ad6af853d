package io.vcorfu.sequencer.internal;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last write address of each (stream, key), bounded to a capacity. Entries are kept in write
 * order, so the entry evicted first is the one written longest ago; its address is handed to the
 * eviction listener, which keeps a conservative per-stream watermark. Not thread-safe.
 */
public final class KeyWriteCache {
  /** Told about every evicted key's stream and last write address. */
  public interface EvictionListener {
    void evicted(StreamId stream, long address);
  }

  private record Key(StreamId stream, ByteString key) {}

  private final int capacity;
  private final EvictionListener listener;
  private final LinkedHashMap<Key, Long> writes;

  public KeyWriteCache(int capacity, EvictionListener listener) {
    if (capacity < 1) {
      throw new IllegalArgumentException("key cache capacity must be >= 1, got " + capacity);
    }
    this.capacity = capacity;
    this.listener = listener;
    this.writes =
        new LinkedHashMap<>(Math.min(capacity, 1 << 16), 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Long> eldest) {
            if (size() > KeyWriteCache.this.capacity) {
              KeyWriteCache.this.listener.evicted(eldest.getKey().stream(), eldest.getValue());
              return true;
            }
            return false;
          }
        };
  }

  /** The last recorded write address of the key, or -1 if the cache does not hold it. */
  public long lastWrite(StreamId stream, ByteString key) {
    Long v = writes.get(new Key(stream, key));
    return v == null ? -1 : v;
  }

  /** Records a write of the key at {@code address} (addresses only grow). */
  public void recordWrite(StreamId stream, ByteString key, long address) {
    Key k = new Key(stream, key);
    writes.remove(k);
    writes.put(k, address);
  }

  public int size() {
    return writes.size();
  }

  public void clear() {
    writes.clear();
  }
}
