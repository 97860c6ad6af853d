package io.vcorfu.collections;

import io.vcorfu.collections.internal.ForkOverlay;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * One bucket of a forked {@link CSMRMap}: the fork's own updates ({@link ForkOverlay}, an object on
 * the fork's bucket stream) over the parent's bucket as of the fork's base (a read-only snapshot
 * view of the parent's bucket stream, or of the parent fork's bucket, recursively).
 *
 * <p><b>Invariant: copy-on-write over an immutable base.</b> The bucket as of any version {@code v}
 * is the parent's bucket as of the fork's base {@code b} with the fork's own updates at or below
 * {@code v} applied in log order on top; nothing else. The parent's state as of {@code b} never
 * changes (the log is write-once and {@code b} was at or below the log's tail when the fork was
 * created), so it is read, never copied, and never written: every write of the fork goes to the
 * fork's own stream only. Inside a transaction the fork's own stream is read at the transaction's
 * snapshot and joins the read set (per key, or whole for size and iteration), while the parent is
 * read at its fixed base and joins no read set: nothing can change it, so there is nothing to
 * conflict on. A transaction over a fork therefore aborts only for writes to the fork itself, never
 * for writes to its parent after the base.
 *
 * <p>Per-key reads and writes cost one call on the fork's own object, and a parent lookup when the
 * fork has not touched the key. Read-then-write methods ({@code putIfAbsent}, {@code compute}, ...)
 * and {@link #fastUpdateFields} (which must read the record, possibly the parent's) each run as one
 * transaction. Thread-safe.
 */
final class ForkBucket<K, V> extends AbstractMap<K, V> implements Bucket<K, V> {
  private final VCorfuRuntime rt;
  private final ForkOverlay<K, V> own;
  private final Bucket<K, V> parent;

  /**
   * {@code own}: the fork's bucket object (live, or a snapshot view for the fork as of a version);
   * {@code parent}: the parent's bucket as of the fork's base, read-only.
   */
  ForkBucket(VCorfuRuntime rt, ForkOverlay<K, V> own, Bucket<K, V> parent) {
    this.rt = rt;
    this.own = own;
    this.parent = parent;
  }

  /** The value for {@code key} given the fork's own answer {@code mine} (see the overlay). */
  @SuppressWarnings("unchecked")
  private V resolve(Object mine, Object key) {
    if (mine == ForkOverlay.REMOVED) {
      return null;
    }
    return mine != null ? (V) mine : parent.get(key);
  }

  @Override
  public V get(Object key) {
    return resolve(own.lookup(Objects.requireNonNull(key, "key")), key);
  }

  @Override
  public boolean containsKey(Object key) {
    return get(key) != null;
  }

  @Override
  public V getOrDefault(Object key, V defaultValue) {
    V v = get(key);
    return v != null ? v : defaultValue;
  }

  @Override
  public V put(K key, V value) {
    Objects.requireNonNull(key, "key");
    return resolve(own.putEntry(key, Objects.requireNonNull(value, "value")), key);
  }

  @Override
  public V remove(Object key) {
    return resolve(own.removeEntry(Objects.requireNonNull(key, "key")), key);
  }

  @Override
  public void fastPut(K key, V value) {
    own.blindPut(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
  }

  /**
   * As {@link SMRMap#fastUpdateFields}, but as one transaction that reads the record (the fork's,
   * or the parent's as of the base) and puts it back with the fields set: the parent's record is
   * not in the fork's stream for a blind update to apply to. Recorded as a put.
   */
  @Override
  @SuppressWarnings("unchecked")
  public void fastUpdateFields(K key, Map<?, ?> fields) {
    Objects.requireNonNull(key, "key");
    Map<Object, Object> copy = new LinkedHashMap<>();
    for (Map.Entry<?, ?> f : Objects.requireNonNull(fields, "fields").entrySet()) {
      copy.put(
          Objects.requireNonNull(f.getKey(), "field name"),
          Objects.requireNonNull(f.getValue(), "field value"));
    }
    if (copy.isEmpty()) {
      return;
    }
    rt.transaction(
        () -> {
          if (get(key) instanceof Map<?, ?> record) {
            Map<Object, Object> updated = new LinkedHashMap<>(record);
            updated.putAll(copy);
            own.blindPut(key, (V) updated);
          }
        });
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> m) {
    Map<K, V> copy = new LinkedHashMap<>();
    for (Map.Entry<? extends K, ? extends V> e : m.entrySet()) {
      copy.put(
          Objects.requireNonNull(e.getKey(), "key"), Objects.requireNonNull(e.getValue(), "value"));
    }
    if (!copy.isEmpty()) {
      own.putEntries(copy);
    }
  }

  /** Hides every key of the parent's bucket and drops the fork's own. */
  @Override
  public void clear() {
    own.clear();
  }

  /** One version: the fork's own updates over the parent's base state; O(1), nothing copied. */
  @Override
  public Map<K, V> snapshot() {
    return new ForkSnapshot<>(own.state(), parent.snapshot());
  }

  @Override
  public int size() {
    return snapshot().size();
  }

  @Override
  public boolean isEmpty() {
    return snapshot().isEmpty();
  }

  @Override
  public boolean containsValue(Object value) {
    return snapshot().containsValue(Objects.requireNonNull(value, "value"));
  }

  // ---- read-then-write, each one transaction (Map's defaults over get, put and remove)

  @Override
  public V putIfAbsent(K key, V value) {
    Objects.requireNonNull(value, "value");
    return rt.transaction(() -> Bucket.super.putIfAbsent(key, value));
  }

  @Override
  public boolean remove(Object key, Object value) {
    return rt.transaction(() -> Bucket.super.remove(key, value));
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    Objects.requireNonNull(newValue, "newValue");
    return rt.transaction(() -> Bucket.super.replace(key, oldValue, newValue));
  }

  @Override
  public V replace(K key, V value) {
    Objects.requireNonNull(value, "value");
    return rt.transaction(() -> Bucket.super.replace(key, value));
  }

  @Override
  public V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
    return rt.transaction(() -> Bucket.super.computeIfAbsent(key, mappingFunction));
  }

  @Override
  public V computeIfPresent(
      K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    return rt.transaction(() -> Bucket.super.computeIfPresent(key, remappingFunction));
  }

  @Override
  public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    return rt.transaction(() -> Bucket.super.compute(key, remappingFunction));
  }

  @Override
  public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
    return rt.transaction(() -> Bucket.super.merge(key, value, remappingFunction));
  }

  @Override
  public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
    Objects.requireNonNull(function, "function");
    rt.transaction(
        () -> {
          for (Map.Entry<K, V> e : snapshot().entrySet()) {
            put(
                e.getKey(),
                Objects.requireNonNull(
                    function.apply(e.getKey(), e.getValue()), "the function's result"));
          }
        });
  }

  // ---- views and identity

  @Override
  public Set<K> keySet() {
    return new MapCollections.Keys<>(this);
  }

  @Override
  public Collection<V> values() {
    return new MapCollections.Values<>(this);
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return new MapCollections.Entries<>(this);
  }

  @Override
  public boolean equals(Object o) {
    return SnapshotMap.sameEntries(this, o);
  }

  @Override
  public int hashCode() {
    return snapshot().hashCode();
  }

  @Override
  public String toString() {
    return snapshot().toString();
  }
}
