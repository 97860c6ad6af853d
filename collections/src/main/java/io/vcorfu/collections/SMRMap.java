package io.vcorfu.collections;

import io.vcorfu.collections.internal.PersistentHashMap;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.ConflictParameter;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;
import io.vcorfu.runtime.annotations.TransactionalMethod;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A replicated {@link java.util.Map}: one object on one stream, opened with {@code
 * rt.objects().open(name, SMRMap.class)} (or {@link #open(VCorfuRuntime, String)}).
 *
 * <p><b>Operations.</b> {@link #get}, {@link #containsKey}, {@link #size}, {@link #isEmpty} and
 * {@link #containsValue} are accessors (sync to the stream's tail, then read locally). {@link #put}
 * and {@link #remove} are mutator-accessors: appended to the log, and they return the previous
 * value the update found at its own place in the log. {@link #fastPut} is a blind write: it is
 * appended without reading anything and returns at once. {@link #clear} and {@link #putAll} are
 * mutators. Every keyed method conflicts on its key ({@code @ConflictParameter}): transactions on
 * different keys of one map do not abort each other, and a put or fastPut outside a transaction
 * aborts only the transactions that read its key (or the whole map: size, iteration, equality). The
 * {@code Map} default methods that read then write ({@link #putIfAbsent}, {@link #compute}, {@link
 * #merge}, {@link #replace}, conditional {@link #remove(Object, Object)}, {@link #replaceAll} ...)
 * are {@code @TransactionalMethod}s, so each is atomic; their function arguments run locally and
 * may run again when the transaction retries after a conflict.
 *
 * <p><b>Views and iteration.</b> {@link #keySet}, {@link #values} and {@link #entrySet} are live
 * views like {@code java.util}'s: their size and membership tests ask the map, and {@code remove},
 * {@code Iterator.remove} and {@code Entry.setValue} write through to it. An iterator walks one
 * consistent version of the map (the version current when it was created, or the transaction's
 * snapshot inside a transaction) and never throws {@link
 * java.util.ConcurrentModificationException}: changes made after it was created, through it or by
 * anyone else, are not seen by it. {@code equals}, {@code hashCode} and {@code toString} follow the
 * {@code Map} contract and read one consistent version.
 *
 * <p><b>Nulls.</b> Null keys and values are refused with {@link NullPointerException} before
 * anything is appended, like {@code Map.of}; {@code get}, {@code containsKey}, {@code
 * containsValue} and {@code remove} of null throw it too. Views answer {@code contains(null)} with
 * false.
 *
 * <p><b>Key and value types.</b> Keys and values travel through the object's serializer. With the
 * runtime's default ({@link io.vcorfu.runtime.serialization.DefaultSerializer}) these work as they
 * are: boxed primitives, {@code String}, {@code UUID}, {@code Instant}, and lists, sets and maps of
 * those. The map's methods declare its key and value types as type variables, so the runtime cannot
 * admit user records or enums for it: admit them first with {@code ((DefaultSerializer)
 * rt.options().serializer()).allow(MyKey.class)}, or open the map with a serializer of its own
 * ({@code rt.objects().builder(name, SMRMap.class).serializer(s).open()}). Keys must have value
 * semantics ({@code equals}/{@code hashCode} over their contents; not arrays). Values returned by
 * the map are the map's own instances: treat them as immutable.
 *
 * <p><b>Versions.</b> The state is a persistent hash map ({@link PersistentHashMap}: an immutable
 * hash trie whose updates copy only the O(log n) path to the changed entry and share the rest), and
 * the class implements {@link VersionCapturing}. The runtime keeps the version after every update,
 * so a read at a transaction's snapshot, a transaction's private copy and an {@code asOf} snapshot
 * view start from a kept version in O(1), without copying or replaying the map, and then cost O(log
 * n) per operation; a mutable map would have to be rebuilt by replaying its history for each of
 * them. Checkpoints hold the entries as a {@code java.util.Map}.
 *
 * <p>Thread-safe, like every object the runtime opens.
 */
public class SMRMap<K, V> implements Bucket<K, V>, VersionCapturing<PersistentHashMap<K, V>> {
  /** A record's map in memory (a {@link LinkedHashMap}, its table), beside its fields. */
  static final long RECORD_BYTES = 96;

  /** Each field of a record's map in memory (its entry and table slot), beside key and value. */
  static final long RECORD_FIELD_BYTES = 48;

  private PersistentHashMap<K, V> entries = PersistentHashMap.empty();
  // What the updates since the last takeReplacedBytes left to older versions alone, beyond their
  // arguments: the records that blindUpdateFields replaced by copies.
  private long replacedBytes;

  /** For the runtime: maps are opened through a {@link VCorfuRuntime}, not constructed. */
  protected SMRMap() {}

  /**
   * Opens the map called {@code name} in {@code rt} (a typed shortcut for {@code
   * rt.objects().open}).
   */
  @SuppressWarnings("unchecked")
  public static <K, V> SMRMap<K, V> open(VCorfuRuntime rt, String name) {
    return rt.objects().open(name, SMRMap.class);
  }

  // ---- reads

  @Override
  @Accessor
  public int size() {
    return entries.size();
  }

  @Override
  @Accessor
  public boolean isEmpty() {
    return entries.isEmpty();
  }

  @Override
  @Accessor
  public V get(@ConflictParameter Object key) {
    return entries.get(Objects.requireNonNull(key, "key"));
  }

  @Override
  @Accessor
  public boolean containsKey(@ConflictParameter Object key) {
    return entries.containsKey(Objects.requireNonNull(key, "key"));
  }

  @Override
  @Accessor
  public boolean containsValue(Object value) {
    return entries.containsValue(Objects.requireNonNull(value, "value"));
  }

  /**
   * An immutable map of every entry, as one version: the current one, or the transaction's snapshot
   * (with its own writes) inside a transaction. O(1) on a local view: the version itself, shared. A
   * whole-map read for conflict detection.
   */
  @Accessor
  public Map<K, V> snapshot() {
    return entries;
  }

  @Override
  public V getOrDefault(Object key, V defaultValue) {
    V v = get(key);
    return v != null ? v : defaultValue;
  }

  @Override
  public void forEach(BiConsumer<? super K, ? super V> action) {
    Objects.requireNonNull(action, "action");
    snapshot().forEach(action);
  }

  // ---- writes

  /** Maps {@code key} to {@code value}; returns the previous value, or null. */
  @Override
  public V put(K key, V value) {
    return putEntry(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
  }

  /** Removes {@code key}; returns its previous value, or null. */
  @Override
  public V remove(Object key) {
    return removeEntry(Objects.requireNonNull(key, "key"));
  }

  /**
   * Maps {@code key} to {@code value} without reading anything: appended and returned at once, so
   * it costs one append, and in a transaction it adds nothing to the read set.
   */
  public void fastPut(K key, V value) {
    blindPut(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
  }

  /**
   * Sets some fields of the record held at {@code key}, without reading anything: for maps whose
   * values are themselves maps of named fields (records). Appended and returned at once, like
   * {@link #fastPut}, and it carries only the given fields, not the whole record.
   *
   * <p>Applied in log order: when {@code key} holds a map, its value becomes a new map with the
   * record's fields, then the given ones (a field in both takes the given value); when {@code key}
   * is absent, or holds a value that is not a map, nothing changes, so an update never creates a
   * record. Two clients setting different fields of one record at the same time both keep theirs,
   * which reading the record and writing it back whole with {@link #fastPut} cannot promise. It
   * conflicts on {@code key} as {@link #fastPut} does: it aborts transactions that read the key,
   * and in a transaction it adds nothing to the read set. An empty {@code fields} appends nothing.
   *
   * @throws NullPointerException if {@code key}, {@code fields} or any of its names or values is
   *     null (nothing is appended)
   */
  public void fastUpdateFields(K key, Map<?, ?> fields) {
    Objects.requireNonNull(key, "key");
    Map<Object, Object> copy = new LinkedHashMap<>();
    for (Map.Entry<?, ?> f : Objects.requireNonNull(fields, "fields").entrySet()) {
      copy.put(
          Objects.requireNonNull(f.getKey(), "field name"),
          Objects.requireNonNull(f.getValue(), "field value"));
    }
    if (!copy.isEmpty()) {
      blindUpdateFields(key, copy);
    }
  }

  /** Puts every entry of {@code m}, in one update (appended once, applied atomically). */
  @Override
  public void putAll(Map<? extends K, ? extends V> m) {
    Map<K, V> copy = new LinkedHashMap<>();
    for (Map.Entry<? extends K, ? extends V> e : m.entrySet()) {
      copy.put(
          Objects.requireNonNull(e.getKey(), "key"), Objects.requireNonNull(e.getValue(), "value"));
    }
    if (!copy.isEmpty()) {
      putEntries(copy);
    }
  }

  @Override
  @Mutator
  public void clear() {
    entries = PersistentHashMap.empty();
  }

  /** The update behind {@link #put}; its arguments are checked there. */
  @MutatorAccessor
  protected V putEntry(@ConflictParameter K key, V value) {
    V previous = entries.get(key);
    entries = entries.plus(key, value);
    return previous;
  }

  /** The update behind {@link #remove(Object)}. */
  @MutatorAccessor
  protected V removeEntry(@ConflictParameter Object key) {
    V previous = entries.get(key);
    entries = entries.minus(key);
    return previous;
  }

  /** The update behind {@link #fastPut}. */
  @Mutator
  protected void blindPut(@ConflictParameter K key, V value) {
    entries = entries.plus(key, value);
  }

  /** The update behind {@link #fastUpdateFields}; its arguments are checked there. */
  @Mutator
  @SuppressWarnings("unchecked")
  protected void blindUpdateFields(@ConflictParameter K key, Map<Object, Object> fields) {
    if (entries.get(key) instanceof Map<?, ?> record) {
      Map<Object, Object> updated = new LinkedHashMap<>(record);
      updated.putAll(fields);
      entries = entries.plus(key, (V) updated);
      // The old record's map stays reachable from the versions before this one; its values are
      // shared with the copy but for the replaced ones, which the arguments stand for.
      replacedBytes += RECORD_BYTES + RECORD_FIELD_BYTES * record.size();
    }
  }

  /** The update behind {@link #putAll}. */
  @Mutator
  protected void putEntries(Map<K, V> m) {
    PersistentHashMap<K, V> next = entries;
    for (Map.Entry<K, V> e : m.entrySet()) {
      next = next.plus(e.getKey(), e.getValue());
    }
    entries = next;
  }

  // ---- read-then-write defaults, each one transaction

  @Override
  @TransactionalMethod
  public V putIfAbsent(K key, V value) {
    Objects.requireNonNull(value, "value");
    V current = get(key);
    return current != null ? current : put(key, value);
  }

  @Override
  @TransactionalMethod
  public boolean remove(Object key, Object value) {
    V current = get(key);
    if (current == null || !current.equals(value)) {
      return false;
    }
    remove(key);
    return true;
  }

  @Override
  @TransactionalMethod
  public boolean replace(K key, V oldValue, V newValue) {
    Objects.requireNonNull(newValue, "newValue");
    V current = get(key);
    if (current == null || !current.equals(oldValue)) {
      return false;
    }
    put(key, newValue);
    return true;
  }

  @Override
  @TransactionalMethod
  public V replace(K key, V value) {
    Objects.requireNonNull(value, "value");
    return containsKey(key) ? put(key, value) : null;
  }

  @Override
  @TransactionalMethod
  public V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
    Objects.requireNonNull(mappingFunction, "mappingFunction");
    V current = get(key);
    if (current != null) {
      return current;
    }
    V computed = mappingFunction.apply(key);
    if (computed != null) {
      put(key, computed);
    }
    return computed;
  }

  @Override
  @TransactionalMethod
  public V computeIfPresent(
      K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    Objects.requireNonNull(remappingFunction, "remappingFunction");
    V current = get(key);
    if (current == null) {
      return null;
    }
    return store(key, remappingFunction.apply(key, current));
  }

  @Override
  @TransactionalMethod
  public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    Objects.requireNonNull(remappingFunction, "remappingFunction");
    V current = get(key);
    V computed = remappingFunction.apply(key, current);
    if (computed == null && current == null) {
      return null;
    }
    return store(key, computed);
  }

  @Override
  @TransactionalMethod
  public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(remappingFunction, "remappingFunction");
    V current = get(key);
    return store(key, current == null ? value : remappingFunction.apply(current, value));
  }

  @Override
  @TransactionalMethod
  public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
    Objects.requireNonNull(function, "function");
    for (Map.Entry<K, V> e : snapshot().entrySet()) {
      put(
          e.getKey(),
          Objects.requireNonNull(
              function.apply(e.getKey(), e.getValue()), "the function's result"));
    }
  }

  /** Puts {@code value}, or removes {@code key} when it is null; returns {@code value}. */
  private V store(K key, V value) {
    if (value == null) {
      remove(key);
    } else {
      put(key, value);
    }
    return value;
  }

  // ---- views and identity

  /** A live view of the keys; see the class comment for iteration and write-through. */
  @Override
  public Set<K> keySet() {
    return new MapCollections.Keys<>(this);
  }

  /** A live view of the values; see the class comment for iteration and write-through. */
  @Override
  public Collection<V> values() {
    return new MapCollections.Values<>(this);
  }

  /** A live view of the entries; {@code Entry.setValue} puts the new value into the map. */
  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return new MapCollections.Entries<>(this);
  }

  /**
   * True when {@code o} is a {@code Map} with the same entries (compared with one version of this
   * map).
   */
  @Override
  public boolean equals(Object o) {
    return SnapshotMap.sameEntries(this, o);
  }

  /** The sum of the entries' hash codes, per the {@code Map} contract. */
  @Override
  public int hashCode() {
    return snapshot().hashCode();
  }

  @Override
  public String toString() {
    return snapshot().toString();
  }

  // ---- versions

  @Override
  public long takeReplacedBytes() {
    long taken = replacedBytes;
    replacedBytes = 0;
    return taken;
  }

  @Override
  public PersistentHashMap<K, V> captureVersion() {
    return entries;
  }

  @Override
  public void restoreVersion(PersistentHashMap<K, V> version) {
    entries = version;
  }

  /** The entries as a plain map: the default serializer encodes them as a map. */
  @Override
  public Object toCheckpoint(PersistentHashMap<K, V> version) {
    return version;
  }

  @Override
  @SuppressWarnings("unchecked")
  public PersistentHashMap<K, V> fromCheckpoint(Object checkpoint) {
    return PersistentHashMap.copyOf((Map<K, V>) checkpoint);
  }
}
