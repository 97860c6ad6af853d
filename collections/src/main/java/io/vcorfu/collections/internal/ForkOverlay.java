package io.vcorfu.collections.internal;

import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.ConflictParameter;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The own updates of one bucket of a forked map: what the fork changed on top of its parent's
 * bucket as of the fork's base, opened as an object on the fork's bucket stream. It holds the keys
 * the fork put (with their values), the keys it removed (which hide the parent's), and whether the
 * fork cleared the bucket (which hides every key of the parent). A key in none of them reads
 * through to the parent, which the caller consults: this object never reads another stream, so its
 * updates stay deterministic.
 *
 * <p>The update methods carry the names and arguments of {@code SMRMap}'s ({@code putEntry}, {@code
 * removeEntry}, {@code blindPut}, {@code putEntries}, {@code clear}), so a fork's streams read back
 * as map updates (watch, history, diff) like any map's. Every keyed method conflicts on its key.
 */
public class ForkOverlay<K, V> implements VersionCapturing<ForkOverlay.State<K, V>> {
  /** What {@link #lookup} answers for a key the fork removed (or hid by a clear). */
  public static final Object REMOVED = new Object();

  /**
   * One version of a fork's own updates to a bucket: the keys it put, the keys it removed (never a
   * key it put), and whether it cleared the bucket since its base (then the parent shows through
   * nowhere). Immutable.
   */
  public record State<K, V>(
      PersistentHashMap<K, V> values, PersistentHashMap<K, Boolean> removed, boolean cleared) {
    static final State<?, ?> EMPTY =
        new State<>(PersistentHashMap.empty(), PersistentHashMap.empty(), false);

    /** The fork's own answer for {@code key}: its value, {@link #REMOVED}, or null (the parent). */
    public Object lookup(Object key) {
      V v = values.get(key);
      if (v != null) {
        return v;
      }
      return cleared || removed.containsKey(key) ? REMOVED : null;
    }

    /** True when {@code key} is hidden from the parent: the fork put it, removed it or cleared. */
    public boolean shadows(Object key) {
      return cleared || values.containsKey(key) || removed.containsKey(key);
    }

    State<K, V> put(K key, V value) {
      return new State<>(values.plus(key, value), removed.minus(key), cleared);
    }

    State<K, V> remove(Object key) {
      @SuppressWarnings("unchecked")
      K k = (K) key;
      return new State<>(values.minus(key), cleared ? removed : removed.plus(k, true), cleared);
    }
  }

  @SuppressWarnings("unchecked")
  private State<K, V> state = (State<K, V>) State.EMPTY;

  /** For the runtime: overlays are opened through a runtime. */
  protected ForkOverlay() {}

  /** The fork's own updates as one version (a whole-bucket read for conflict detection). */
  @Accessor
  public State<K, V> state() {
    return state;
  }

  /** The fork's own answer for {@code key}; see {@link State#lookup}. */
  @Accessor
  public Object lookup(@ConflictParameter Object key) {
    return state.lookup(key);
  }

  /** Puts {@code key}; returns what {@link #lookup} answered before. */
  @MutatorAccessor
  public Object putEntry(@ConflictParameter K key, V value) {
    Object previous = state.lookup(key);
    state = state.put(key, value);
    return previous;
  }

  /** Removes {@code key}; returns what {@link #lookup} answered before. */
  @MutatorAccessor
  public Object removeEntry(@ConflictParameter Object key) {
    Object previous = state.lookup(key);
    state = state.remove(key);
    return previous;
  }

  @Mutator
  public void blindPut(@ConflictParameter K key, V value) {
    state = state.put(key, value);
  }

  @Mutator
  public void putEntries(Map<K, V> m) {
    State<K, V> next = state;
    for (Map.Entry<K, V> e : m.entrySet()) {
      next = next.put(e.getKey(), e.getValue());
    }
    state = next;
  }

  /** Hides every key of the parent and forgets the fork's own. */
  @Mutator
  public void clear() {
    state = new State<>(PersistentHashMap.empty(), PersistentHashMap.empty(), true);
  }

  @Override
  public State<K, V> captureVersion() {
    return state;
  }

  @Override
  public void restoreVersion(State<K, V> version) {
    state = version;
  }

  /** A list the default serializer encodes: the values, the removed keys, the clear flag. */
  @Override
  public Object toCheckpoint(State<K, V> version) {
    return List.of(
        version.values(), new ArrayList<>(version.removed().keySet()), version.cleared());
  }

  @Override
  @SuppressWarnings("unchecked")
  public State<K, V> fromCheckpoint(Object checkpoint) {
    List<Object> parts = (List<Object>) checkpoint;
    PersistentHashMap<K, Boolean> removed = PersistentHashMap.empty();
    for (Object key : (List<Object>) parts.get(1)) {
      removed = removed.plus((K) key, true);
    }
    return new State<>(
        PersistentHashMap.copyOf((Map<K, V>) parts.get(0)), removed, (Boolean) parts.get(2));
  }
}
