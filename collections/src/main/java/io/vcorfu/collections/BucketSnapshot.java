package io.vcorfu.collections;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * One snapshot of a {@link CSMRMap}: the bucket maps' versions side by side, read as one immutable
 * map without copying them. Lookups go to the key's bucket; iteration walks the buckets in order.
 * Immutable (the {@code Map} mutators throw {@link UnsupportedOperationException}); thread-safe
 * when its parts are (bucket versions are immutable).
 */
final class BucketSnapshot<K, V> extends AbstractMap<K, V> {
  private final List<Map<K, V>> parts;
  private final ToIntFunction<Object> bucketOf;
  private final int size;

  /**
   * Every bucket of {@code map} read at the current snapshot (the open transaction's, when called
   * in one), side by side.
   */
  static <K, V> BucketSnapshot<K, V> of(CSMRMap<K, V> map) {
    List<Map<K, V>> parts = new java.util.ArrayList<>(map.bucketCount());
    for (int i = 0; i < map.bucketCount(); i++) {
      parts.add(map.bucket(i).snapshot());
    }
    return new BucketSnapshot<>(parts, map::bucketOf);
  }

  BucketSnapshot(List<Map<K, V>> parts, ToIntFunction<Object> bucketOf) {
    this.parts = List.copyOf(parts);
    this.bucketOf = bucketOf;
    long total = 0;
    for (Map<K, V> p : parts) {
      total += p.size();
    }
    this.size = (int) Math.min(total, Integer.MAX_VALUE);
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public V get(Object key) {
    return key == null ? null : parts.get(bucketOf.applyAsInt(key)).get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return key != null && parts.get(bucketOf.applyAsInt(key)).containsKey(key);
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<K, V>> iterator() {
        return new Iterator<>() {
          private int part;
          private Iterator<Map.Entry<K, V>> current =
              parts.isEmpty() ? null : parts.get(0).entrySet().iterator();

          @Override
          public boolean hasNext() {
            while (current != null && !current.hasNext()) {
              part++;
              current = part < parts.size() ? parts.get(part).entrySet().iterator() : null;
            }
            return current != null;
          }

          @Override
          public Map.Entry<K, V> next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            Map.Entry<K, V> e = current.next();
            return new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue());
          }
        };
      }

      @Override
      public int size() {
        return size;
      }
    };
  }
}
