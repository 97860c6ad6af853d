package io.vcorfu.collections;

import io.vcorfu.collections.internal.FeistelPermutation;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.Version;
import io.vcorfu.runtime.serialization.Serializer;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A composed replicated map (CSMR): one logical {@link Map} over a fixed number of bucket {@link
 * SMRMap}s, each its own object on its own stream. A client playing one bucket holds and replays
 * only that bucket's share of the keys and updates, and writers of keys in different buckets never
 * contend on one stream.
 *
 * <p><b>Streams.</b> For a map called {@code name}: the layout (the bucket count) lives on stream
 * {@code name + "/layout"}, bucket {@code i} (0-based) on {@code name + "/bucket-" + i} (see {@link
 * #bucketStreamName}).
 *
 * <p><b>Placement.</b> A key goes to bucket {@code P(H(key)) mod buckets} (unsigned), where {@code
 * H} is the 64-bit FNV-1a hash of the key's bytes as encoded by the runtime's serializer and {@code
 * P} is the Luby-Rackoff permutation {@link FeistelPermutation#BUCKETS} (a 4-round Feistel network
 * with fixed round keys). Both are defined on the encoded bytes, never on {@code Object.hashCode},
 * so every client in every JVM places every key alike; the permutation spreads keys whose hashes
 * cluster. Keys must therefore be values the serializer encodes deterministically (the default
 * serializer does), with {@code equals} consistent with their encoding.
 *
 * <p><b>Operations.</b> {@link #get}, {@link #put}, {@link #remove}, {@link #containsKey}, {@link
 * #fastPut} and the per-key {@code Map} defaults ({@code putIfAbsent}, {@code compute}, {@code
 * merge}, ...) touch exactly one bucket and behave as that bucket's {@link SMRMap} method (per-key
 * conflicts, atomic read-then-write defaults). {@link #size}, {@link #isEmpty}, {@link #clear},
 * {@link #putAll}, {@link #containsValue}, {@link #replaceAll}, {@link #equals}, {@link #hashCode},
 * {@link #toString} and iteration each run as one transaction over all buckets: reads see one
 * consistent snapshot of every bucket, writes commit atomically in one log entry. Called inside an
 * open transaction they join it.
 *
 * <p><b>Views.</b> {@link #keySet}, {@link #values} and {@link #entrySet} are live: size and
 * membership ask the map, removals and {@code Entry.setValue} write through. An iterator walks the
 * snapshot {@link #snapshot()} returned when it was created (the same rules as {@link SMRMap}'s
 * iterators: never a {@link java.util.ConcurrentModificationException}).
 *
 * <p><b>Forks.</b> {@link #fork}: a writable copy-on-write copy as of a version (see {@link
 * ForkBucket}), a map like any, opened by its name, forked again alike; {@link #diff(CSMRMap)} and
 * {@link #merge(CSMRMap)} compare and merge two maps through their common base.
 *
 * <p><b>Nulls</b> are refused with {@link NullPointerException}, as in {@link SMRMap}. Thread-safe:
 * the handle holds only the runtime, the name and lazily opened bucket views.
 */
public final class CSMRMap<K, V> extends AbstractMap<K, V> implements SnapshotMap<K, V> {
  /** Where the buckets' state lives. */
  public enum BucketViews {
    /** Local views: each bucket is played into this client on first use (the default). */
    LOCAL,
    /** Remote views: each bucket's state stays on the server hosting its stream. */
    REMOTE
  }

  private final VCorfuRuntime rt;
  private final String name;
  private final int bucketCount;
  private final BucketViews views;
  private final Serializer serializer;
  private final AtomicReferenceArray<Bucket<K, V>> buckets;
  private final List<ForkBase> lineage;

  /** {@code lineage}: the bases of the fork chain, nearest first (empty: not a fork). */
  CSMRMap(
      VCorfuRuntime rt, String name, int bucketCount, BucketViews views, List<ForkBase> lineage) {
    this.rt = rt;
    this.name = name;
    this.bucketCount = bucketCount;
    this.views = views;
    this.serializer = rt.options().serializer();
    this.buckets = new AtomicReferenceArray<>(bucketCount);
    this.lineage = List.copyOf(lineage);
  }

  /**
   * Opens (creating it if new) the map called {@code name} with {@code buckets} buckets, local
   * views.
   */
  public static <K, V> CSMRMap<K, V> open(VCorfuRuntime rt, String name, int buckets) {
    return open(rt, name, buckets, BucketViews.LOCAL);
  }

  /**
   * Opens the map called {@code name}, creating it with {@code buckets} buckets if it was never
   * created. Creation is an update of the map's layout: when several clients create one map
   * concurrently, the first creation in the log wins and every client reads its count.
   *
   * @throws BucketCountMismatchException if the map exists with another bucket count
   * @throws IllegalArgumentException if {@code buckets} is below 1
   */
  public static <K, V> CSMRMap<K, V> open(
      VCorfuRuntime rt, String name, int buckets, BucketViews views) {
    return MapStreams.openOrCreate(rt, name, buckets, views);
  }

  /** Opens the existing map called {@code name} with its stored bucket count, local views. */
  public static <K, V> CSMRMap<K, V> open(VCorfuRuntime rt, String name) {
    return open(rt, name, BucketViews.LOCAL);
  }

  /**
   * Opens the existing map (or fork) called {@code name} with its stored bucket count. A fork's own
   * buckets are local views whatever {@code views} says.
   *
   * @throws io.vcorfu.runtime.ObjectOpenException if no map called {@code name} was ever created
   */
  public static <K, V> CSMRMap<K, V> open(VCorfuRuntime rt, String name, BucketViews views) {
    return MapStreams.openExisting(rt, name, views);
  }

  /** The stream holding the layout (bucket count, fork base) of the map called {@code name}. */
  public static StreamId layoutStream(String name) {
    return StreamId.of(name + "/layout");
  }

  /**
   * Keeps {@code retention} for every bucket of this map, instead of the runtime's, while this
   * runtime has them open as local views (see {@link io.vcorfu.runtime.ObjectBuilder#retention});
   * null goes back to the runtime's. Remote bucket views are checkpointed and trimmed by their
   * hosts, which follow the cluster's retention.
   */
  public void retain(io.vcorfu.runtime.Retention retention) {
    MapStreams.bucketStreams(name, bucketCount).forEach(b -> rt.retain(b, retention));
  }

  /**
   * The changes committed to this map at global address {@code from} or later, as they commit: one
   * {@link MapUpdate} per log entry that changed it, in log order, each once, with back-pressure,
   * resumable from any address and riding through failovers (see {@link VCorfuRuntime#watch}).
   */
  public java.util.concurrent.Flow.Publisher<MapUpdate<K, V>> watch(long from) {
    return io.vcorfu.client.Publishers.mapping(
        rt.watch(MapStreams.bucketStreams(name, bucketCount), from), MapUpdate::of);
  }

  /**
   * Like {@link #watch(long)}, only the changes of the keys {@code keys} accepts (a key range, a
   * prefix), and every clear; an entry that changed none of them is not delivered.
   */
  public java.util.concurrent.Flow.Publisher<MapUpdate<K, V>> watch(
      long from, java.util.function.Predicate<? super K> keys) {
    return io.vcorfu.client.Publishers.mapping(
        rt.watch(MapStreams.bucketStreams(name, bucketCount), from), u -> MapUpdate.of(u, keys));
  }

  /**
   * The versions of {@code key} below global address {@code before} ({@code Long.MAX_VALUE}: all),
   * newest first, at most {@code limit}: read back from its bucket's stream replica, no state
   * replayed (see {@link VCorfuRuntime#history}); page on with {@code nextBefore}.
   */
  public io.vcorfu.runtime.ObjectHistory<KeyVersion<V>> history(K key, long before, int limit) {
    StreamId bucket = StreamId.of(bucketStreamName(name, bucketOf(Objects.requireNonNull(key))));
    return rt.history(bucket, before, limit, u -> KeyVersion.of(MapUpdate.<K, V>of(u), key));
  }

  /**
   * What differs between the map as of global address {@code from} and as of {@code to} (see {@link
   * MapDiff}): computed from the updates between them, not from two whole states.
   */
  public MapDiff<K, V> diff(long from, long to) {
    return MapDiff.of(this, rt, from, to);
  }

  /**
   * What this map has that {@code against} has not, both as of the log's current snapshot: {@code
   * added} are keys only here, {@code removed} keys only in {@code against}, {@code changed} keys
   * in both whose values differ ({@code before}: {@code against}'s); {@code from} and {@code to}
   * are that snapshot. For two forks, or a fork and its parent, only the keys touched above their
   * common base are compared (see {@link ForkDiff}). Not inside a transaction.
   */
  public MapDiff<K, V> diff(CSMRMap<K, V> against) {
    return diff(against, MapFork.now(rt));
  }

  /** Like {@link #diff(CSMRMap)}, both maps as of global address {@code version}. */
  public MapDiff<K, V> diff(CSMRMap<K, V> against, long version) {
    return ForkDiff.of(rt, this, Objects.requireNonNull(against, "against"), version);
  }

  /**
   * Creates the fork {@code forkName} of this map as of global address {@code version} (-1: the
   * empty map) and opens it: a writable map holding this map's state as of {@code version} plus its
   * own updates, which go to its own streams only. Nothing of this map is copied or written: one
   * record (the fork's parent and base) goes to the fork's layout stream, so every client opening
   * the fork by name sees the same base. Forks of forks work alike. Not inside a transaction.
   *
   * @throws ForkRefusedException if {@code forkName} is taken, or {@code version} is past the log's
   *     tail or trimmed from this map's history (nothing is written then)
   */
  public CSMRMap<K, V> fork(String forkName, long version) {
    return MapFork.create(rt, this, forkName, version);
  }

  /** Like {@link #fork(String, long)}, as of the log's current snapshot. */
  public CSMRMap<K, V> fork(String forkName) {
    return fork(forkName, MapFork.now(rt));
  }

  /**
   * Merges {@code source} into this map, three-way through their common base, in one transaction
   * (see {@link MapMerge}): keys only the source changed since the base take its value (or are
   * removed), keys only this map changed are kept, keys both changed to different values go to
   * {@code resolver} (empty: remove), or fail the merge with {@link MergeConflictException} when it
   * is {@link MergePolicy#FAIL}'s. Records the merge ({@link #merges()}); a later merge of the same
   * source starts from it. Not inside a transaction. Throws {@link MergeRefusedException} for maps
   * without a common base, and the last abort when every attempt was aborted; nothing is written.
   */
  public MergeResult<K, V> merge(CSMRMap<K, V> source, MergeResolver<K, V> resolver) {
    return MapMerge.merge(rt, this, source, resolver);
  }

  /** Like {@link #merge(CSMRMap, MergeResolver)}, settling conflicts by {@code policy}. */
  public MergeResult<K, V> merge(CSMRMap<K, V> source, MergePolicy policy) {
    return MapMerge.merge(rt, this, source, MergeResolver.of(policy));
  }

  /** Like {@link #merge(CSMRMap, MergePolicy)} with {@link MergePolicy#FAIL}. */
  public MergeResult<K, V> merge(CSMRMap<K, V> source) {
    return merge(source, MergePolicy.FAIL);
  }

  /** The merges into this map, oldest first, as of the log's current snapshot. */
  public List<MergeRecord> merges() {
    return MapMerge.records(rt, name, MapFork.now(rt));
  }

  /** Where this map starts when it is a fork (its parent and base), else empty. */
  public java.util.Optional<ForkBase> forkBase() {
    return lineage.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(lineage.get(0));
  }

  /** The bases of this map's fork chain, nearest first (empty: not a fork). */
  List<ForkBase> lineage() {
    return lineage;
  }

  /** Like {@link #watch(long)}, from what commits after each subscription. */
  public java.util.concurrent.Flow.Publisher<MapUpdate<K, V>> watchFromNow() {
    return io.vcorfu.client.Publishers.mapping(
        rt.watchFromNow(MapStreams.bucketStreams(name, bucketCount)), MapUpdate::of);
  }

  /** The stream name of bucket {@code index} of the map called {@code name}. */
  public static String bucketStreamName(String name, int index) {
    return name + "/bucket-" + index;
  }

  public String name() {
    return name;
  }

  public int bucketCount() {
    return bucketCount;
  }

  /** The bucket {@code key} lives in (0 to {@link #bucketCount()} - 1); see the class comment. */
  public int bucketOf(Object key) {
    long hash =
        FeistelPermutation.stableHash(serializer.serialize(Objects.requireNonNull(key, "key")));
    return (int) Long.remainderUnsigned(FeistelPermutation.BUCKETS.permute(hash), bucketCount);
  }

  /** The bucket map at {@code index}, opened on first use. */
  Bucket<K, V> bucket(int index) {
    Bucket<K, V> b = buckets.get(index);
    if (b == null) {
      buckets.compareAndSet(
          index, null, MapStreams.bucket(rt, name, lineage, index, views, Version.LIVE));
      b = buckets.get(index);
    }
    return b;
  }

  /** Bucket {@code index} as of {@code version}, read-only; {@code underHold}: see MapStreams. */
  Bucket<K, V> bucketAt(int index, long version, boolean underHold) {
    return MapStreams.bucketAt(rt, name, lineage, index, version, underHold);
  }

  private Bucket<K, V> bucketFor(Object key) {
    return bucket(bucketOf(key));
  }

  // ---- one bucket

  @Override
  public V get(Object key) {
    return bucketFor(key).get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return bucketFor(key).containsKey(key);
  }

  @Override
  public V getOrDefault(Object key, V defaultValue) {
    return bucketFor(key).getOrDefault(key, defaultValue);
  }

  @Override
  public V put(K key, V value) {
    Objects.requireNonNull(value, "value");
    return bucketFor(key).put(key, value);
  }

  /**
   * Maps {@code key} to {@code value} with a blind write: one append, no read (see {@link
   * SMRMap#fastPut}).
   */
  public void fastPut(K key, V value) {
    Objects.requireNonNull(value, "value");
    bucketFor(key).fastPut(key, value);
  }

  /**
   * Sets some fields of the record held at {@code key} without reading anything (one bucket; see
   * {@link SMRMap#fastUpdateFields}): an absent key stays absent.
   */
  public void fastUpdateFields(K key, Map<?, ?> fields) {
    Objects.requireNonNull(key, "key");
    bucketFor(key).fastUpdateFields(key, fields);
  }

  @Override
  public V remove(Object key) {
    return bucketFor(key).remove(key);
  }

  @Override
  public V putIfAbsent(K key, V value) {
    return bucketFor(key).putIfAbsent(key, value);
  }

  @Override
  public boolean remove(Object key, Object value) {
    return bucketFor(key).remove(key, value);
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    return bucketFor(key).replace(key, oldValue, newValue);
  }

  @Override
  public V replace(K key, V value) {
    return bucketFor(key).replace(key, value);
  }

  @Override
  public V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
    return bucketFor(key).computeIfAbsent(key, mappingFunction);
  }

  @Override
  public V computeIfPresent(
      K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    return bucketFor(key).computeIfPresent(key, remappingFunction);
  }

  @Override
  public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    return bucketFor(key).compute(key, remappingFunction);
  }

  @Override
  public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
    return bucketFor(key).merge(key, value, remappingFunction);
  }

  // ---- every bucket, one transaction

  /**
   * The number of entries, summed over every bucket at one snapshot (capped at {@code
   * Integer.MAX_VALUE}).
   */
  @Override
  public int size() {
    return rt.transaction(
        () -> {
          long total = 0;
          for (int i = 0; i < bucketCount; i++) {
            total += bucket(i).size();
          }
          return (int) Math.min(total, Integer.MAX_VALUE);
        });
  }

  @Override
  public boolean isEmpty() {
    return !anyBucket(b -> !b.isEmpty());
  }

  @Override
  public boolean containsValue(Object value) {
    Objects.requireNonNull(value, "value");
    return anyBucket(b -> b.containsValue(value));
  }

  private boolean anyBucket(java.util.function.Predicate<Bucket<K, V>> test) {
    return rt.transaction(
        () -> java.util.stream.IntStream.range(0, bucketCount).anyMatch(i -> test.test(bucket(i))));
  }

  /**
   * Removes every entry of every bucket, atomically (one commit entry on every bucket's stream).
   */
  @Override
  public void clear() {
    rt.transaction(
        () -> {
          for (int i = 0; i < bucketCount; i++) {
            bucket(i).clear();
          }
        });
  }

  /** Puts every entry of {@code m}, atomically: one update per bucket touched, one commit entry. */
  @Override
  public void putAll(Map<? extends K, ? extends V> m) {
    Map<Integer, Map<K, V>> byBucket = new LinkedHashMap<>();
    for (Map.Entry<? extends K, ? extends V> e : m.entrySet()) {
      K key = Objects.requireNonNull(e.getKey(), "key");
      V value = Objects.requireNonNull(e.getValue(), "value");
      byBucket.computeIfAbsent(bucketOf(key), b -> new LinkedHashMap<>()).put(key, value);
    }
    if (byBucket.isEmpty()) {
      return;
    }
    rt.transaction(() -> byBucket.forEach((b, entries) -> bucket(b).putAll(entries)));
  }

  @Override
  public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
    Objects.requireNonNull(function, "function");
    rt.transaction(
        () -> {
          for (int i = 0; i < bucketCount; i++) {
            bucket(i).replaceAll(function);
          }
        });
  }

  /**
   * Every entry as one immutable map, read from every bucket at one snapshot (the current one, or
   * the open transaction's). Costs one read per bucket; on local views the buckets' versions are
   * shared, not copied.
   */
  public Map<K, V> snapshot() {
    return rt.transaction(() -> BucketSnapshot.of(this));
  }

  @Override
  public void forEach(BiConsumer<? super K, ? super V> action) {
    Objects.requireNonNull(action, "action");
    snapshot().forEach(action);
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return new MapCollections.Entries<>(this);
  }

  @Override
  public Set<K> keySet() {
    return new MapCollections.Keys<>(this);
  }

  @Override
  public Collection<V> values() {
    return new MapCollections.Values<>(this);
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
