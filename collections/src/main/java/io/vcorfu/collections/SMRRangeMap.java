package io.vcorfu.collections;

import io.vcorfu.collections.internal.ForwardingNavigableMap;
import io.vcorfu.collections.internal.KeyRange;
import io.vcorfu.collections.internal.PersistentSortedMap;
import io.vcorfu.collections.internal.RangeNavigableMap;
import io.vcorfu.collections.internal.RangeStore;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.ConflictParameter;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;

/**
 * A replicated sorted map (SMR: its whole history is one stream), usable as a {@link NavigableMap}.
 * Open it like any vcorfu object: {@code rt.objects().open("name", SMRRangeMap.class)}; {@code
 * builder(...).asOf(address)} gives a read-only snapshot.
 *
 * <p><b>State.</b> The map's state is one {@link PersistentSortedMap}: a persistent AVL tree with
 * path copying, so an update costs O(log n) and leaves every older version intact. The class
 * implements {@link VersionCapturing}, so the runtime keeps the version after every update and
 * serves snapshot reads, {@code asOf} views and transaction copies from it without copying or
 * replaying the map. Reads are O(log n) (counting a range included); iteration is O(1) per entry.
 *
 * <p><b>Semantics.</b> Like {@link java.util.TreeMap} with natural ordering, with these
 * differences: null keys and null values are refused with {@link NullPointerException} (by every
 * method taking a key or value, {@code containsValue(null)} included); keys must be mutually
 * comparable and encodable by the object's serializer. Every call reads one consistent version:
 * {@code size()} and iterations of the map or of any view see one version each, and an iterator
 * keeps walking the version it started on (it never throws {@link
 * java.util.ConcurrentModificationException}). Views ({@link #subMap}, {@link #headMap}, {@link
 * #tailMap}, {@link #descendingMap}, {@link #navigableKeySet}, {@link #entrySet}, {@link #values})
 * are live like TreeMap's: each call reads the map's latest version (or the transaction's
 * snapshot), writes through views go to the map, and a view refuses keys outside its range with
 * {@link IllegalArgumentException}. Entries returned by navigation methods ({@link #firstEntry},
 * {@link #floorEntry}, ...) are immutable snapshots; entries met while iterating {@link
 * #entrySet()} write through on {@code setValue}.
 *
 * <p><b>Transactions and conflicts.</b> {@code get}, {@code containsKey}, {@code put}, {@code
 * fastPut} and {@code remove} conflict per key: transactions touching different keys of one map do
 * not abort each other. Every other read (size, navigation, iteration, views) and {@code clear},
 * {@code pollFirstEntry}, {@code pollLastEntry} conflict with any write to the map.
 *
 * <p><b>Costs and limits.</b> {@code put} and {@code remove} append their call and wait until the
 * view has applied it (they return the previous value); {@link #fastPut} appends without waiting. A
 * checkpoint holds the entries as a map (its keys and values must be types the object's serializer
 * encodes), rebuilt into a tree on restore. A remote view serves {@code get}, {@code containsKey},
 * {@code put}, {@code fastPut}, {@code remove} and {@code clear}; the other reads return a version
 * of the tree, which only local and snapshot views can.
 *
 * <p>Thread-safe.
 *
 * @param <K> key type, ordered by its natural ordering
 * @param <V> value type
 */
public class SMRRangeMap<K extends Comparable<? super K>, V> extends ForwardingNavigableMap<K, V>
    implements VersionCapturing<PersistentSortedMap<K, V>> {
  private PersistentSortedMap<K, V> tree = PersistentSortedMap.empty();
  private final transient RangeNavigableMap<K, V> all = RangeNavigableMap.of(new Store());

  /** The initial (empty) state; applications open the map through a runtime instead. */
  public SMRRangeMap() {}

  /**
   * Opens the range map called {@code name} in {@code rt} (a typed shortcut for {@code
   * rt.objects().open}).
   */
  @SuppressWarnings("unchecked")
  public static <K extends Comparable<? super K>, V> SMRRangeMap<K, V> open(
      VCorfuRuntime rt, String name) {
    return rt.objects().open(name, SMRRangeMap.class);
  }

  // ---- Replicated methods: the only ones that touch the state. ----

  @Accessor
  protected V valueOf(@ConflictParameter K key) {
    return tree.get(key);
  }

  @Accessor
  protected boolean holds(@ConflictParameter K key) {
    return tree.containsKey(key);
  }

  /** The current version of the whole tree (immutable). */
  @Accessor
  protected PersistentSortedMap<K, V> currentTree() {
    return tree;
  }

  @MutatorAccessor
  protected V putEntry(@ConflictParameter K key, V value) {
    V old = tree.get(key);
    tree = tree.put(key, value);
    return old;
  }

  @Mutator
  protected void putBlind(@ConflictParameter K key, V value) {
    tree = tree.put(key, value);
  }

  @MutatorAccessor
  protected V removeEntry(@ConflictParameter K key) {
    V old = tree.get(key);
    tree = tree.remove(key);
    return old;
  }

  @MutatorAccessor
  protected Map.Entry<K, V> pollEntry(
      K lo, boolean loInclusive, K hi, boolean hiInclusive, boolean last) {
    KeyRange<K> r = new KeyRange<>(lo, loInclusive, hi, hiInclusive);
    Map.Entry<K, V> e = last ? tree.last(r) : tree.first(r);
    if (e != null) {
      tree = tree.remove(e.getKey());
    }
    return e;
  }

  @Mutator
  protected void clearRange(K lo, boolean loInclusive, K hi, boolean hiInclusive) {
    tree = tree.removeRange(new KeyRange<>(lo, loInclusive, hi, hiInclusive));
  }

  /** Called by the runtime under the view's lock: the state as an immutable value, O(1). */
  @Override
  public PersistentSortedMap<K, V> captureVersion() {
    return tree;
  }

  /** The entries of {@code version} as a plain map, in key order, for a checkpoint. */
  @Override
  public Object toCheckpoint(PersistentSortedMap<K, V> version) {
    java.util.Map<K, V> entries = new java.util.LinkedHashMap<>();
    java.util.Iterator<java.util.Map.Entry<K, V>> it =
        version.iterator(io.vcorfu.collections.internal.KeyRange.all(), false);
    while (it.hasNext()) {
      java.util.Map.Entry<K, V> e = it.next();
      entries.put(e.getKey(), e.getValue());
    }
    return entries;
  }

  /** The tree a checkpoint's entries make. */
  @Override
  @SuppressWarnings("unchecked")
  public PersistentSortedMap<K, V> fromCheckpoint(Object checkpoint) {
    PersistentSortedMap<K, V> t = PersistentSortedMap.empty();
    for (java.util.Map.Entry<K, V> e : ((java.util.Map<K, V>) checkpoint).entrySet()) {
      t = t.put(e.getKey(), e.getValue());
    }
    return t;
  }

  /** Called by the runtime on a fresh instance: adopts {@code version}, O(1). */
  @Override
  public void restoreVersion(PersistentSortedMap<K, V> version) {
    tree = Objects.requireNonNull(version, "version");
  }

  /** The primitives the views build on; each is one replicated call, so one version. */
  private final class Store implements RangeStore<K, V> {
    @Override
    public V get(K key) {
      return valueOf(key);
    }

    @Override
    public boolean containsKey(K key) {
      return holds(key);
    }

    @Override
    public Map.Entry<K, V> first(KeyRange<K> range) {
      return currentTree().first(range);
    }

    @Override
    public Map.Entry<K, V> last(KeyRange<K> range) {
      return currentTree().last(range);
    }

    @Override
    public int count(KeyRange<K> range) {
      return currentTree().count(range);
    }

    @Override
    public Iterator<Map.Entry<K, V>> entries(KeyRange<K> range, boolean descending) {
      return currentTree().iterator(range, descending);
    }

    @Override
    public V put(K key, V value) {
      return putEntry(key, value);
    }

    @Override
    public V remove(K key) {
      return removeEntry(key);
    }

    @Override
    public Map.Entry<K, V> poll(KeyRange<K> range, boolean last) {
      return pollEntry(range.lo(), range.loInclusive(), range.hi(), range.hiInclusive(), last);
    }

    @Override
    public void clear(KeyRange<K> range) {
      clearRange(range.lo(), range.loInclusive(), range.hi(), range.hiInclusive());
    }
  }

  // ---- The java.util surface, over the replicated methods. ----

  /**
   * Maps {@code key} to {@code value} without waiting for the previous value: appends the update
   * and returns (inside a transaction, buffers it). Conflicts on {@code key} only.
   */
  public void fastPut(K key, V value) {
    Objects.requireNonNull(key, "this map does not hold null keys");
    Objects.requireNonNull(value, "this map does not hold null values");
    putBlind(key, value);
  }

  @Override
  protected NavigableMap<K, V> delegate() {
    return all;
  }

  /**
   * Appends one blind put per mapping ({@link #fastPut}), without waiting for previous values; not
   * atomic outside a transaction (a null key or value stops it part way, like TreeMap's).
   */
  @Override
  public void putAll(Map<? extends K, ? extends V> m) {
    for (Map.Entry<? extends K, ? extends V> e : m.entrySet()) {
      fastPut(e.getKey(), e.getValue());
    }
  }

  @Override
  public int size() {
    return currentTree().size();
  }

  @Override
  public boolean isEmpty() {
    return currentTree().isEmpty();
  }

  /** Null: keys follow their natural ordering. */
  @Override
  public Comparator<? super K> comparator() {
    return null;
  }
}
