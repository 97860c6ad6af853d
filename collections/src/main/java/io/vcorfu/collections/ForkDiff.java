package io.vcorfu.collections;

import io.vcorfu.collections.internal.ForkOverlay;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.ObjectUpdates;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.Version;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The diff between two maps at one version (see {@link CSMRMap#diff(CSMRMap, long)}), through their
 * common base where they have one.
 *
 * <p>Each map is a chain: the map, its parent as of its base, the parent's parent as of the
 * parent's base, and so on. Where the two chains meet (the nearest map {@code M} both descend from,
 * possibly one of the two themselves), at versions {@code a} and {@code b}, the two sides share
 * {@code M}'s state as of {@code c = min(a, b)}; they can differ only in the keys touched above it:
 * the keys every fork below the meeting point put or removed (read from the forks' own state,
 * nothing replayed) and the keys {@code M}'s updates between {@code c} and {@code max(a, b)}
 * touched (read back from its streams). Only those keys are compared, and each side's value of a
 * key is the nearest fork's own, else the last of {@code M}'s updates on that side, else {@code
 * M}'s as of {@code c}: so {@code M} is rebuilt once, as of {@code c}, and only in the buckets
 * where some key needs it. A clear on either side, a trimmed range, or two maps without a common
 * base fall back to comparing every key of both states.
 */
final class ForkDiff<K, V> {
  /** One link of a chain: a map, the version of it the chain sees, and its own chain above. */
  record Link(String name, long version, List<ForkBase> lineage) {}

  /** A key's last change among {@code M}'s updates: its value, absent, or "read it at the top". */
  private record Fate(Object value, boolean fields) {}

  private static final Fate REMOVED = new Fate(null, false);
  private static final Fate FIELDS = new Fate(null, true);

  private final VCorfuRuntime rt;
  private final int buckets;
  private final Link meet;
  private final long low;
  private final long high;
  private final Map<String, ForkOverlay.State<K, V>> own = new HashMap<>();
  private final List<Map<Object, Fate>> fates = new ArrayList<>();
  private final Map<Long, Bucket<K, V>> meetBuckets = new HashMap<>();

  private ForkDiff(VCorfuRuntime rt, int buckets, Link meet, long low, long high) {
    this.rt = rt;
    this.buckets = buckets;
    this.meet = meet;
    this.low = low;
    this.high = high;
  }

  static <K, V> MapDiff<K, V> of(
      VCorfuRuntime rt, CSMRMap<K, V> map, CSMRMap<K, V> against, long at) {
    List<Link> mine = chain(map, at);
    List<Link> theirs = chain(against, at);
    for (int i = 0; i < mine.size(); i++) {
      int j = indexOf(theirs, mine.get(i).name());
      if (j < 0) {
        continue;
      }
      long a = mine.get(i).version();
      long b = theirs.get(j).version();
      ForkDiff<K, V> d =
          new ForkDiff<>(rt, map.bucketCount(), mine.get(i), Math.min(a, b), Math.max(a, b));
      Set<K> touched = new HashSet<>();
      if (d.touched(mine.subList(0, i), touched)
          && d.touched(theirs.subList(0, j), touched)
          && d.readUpdates(touched)) {
        return d.compare(map, mine.subList(0, i), a, theirs.subList(0, j), b, touched, at);
      }
      break;
    }
    return whole(map, against, at);
  }

  /** Adds the keys {@code forks} put or removed; false when one of them cleared a bucket. */
  private boolean touched(List<Link> forks, Set<K> touched) {
    for (Link fork : forks) {
      for (int bucket = 0; bucket < buckets; bucket++) {
        ForkOverlay.State<K, V> state = state(fork, bucket);
        if (state.cleared()) {
          return false;
        }
        touched.addAll(state.values().keySet());
        touched.addAll(state.removed().keySet());
      }
    }
    return true;
  }

  private ForkOverlay.State<K, V> state(Link fork, int bucket) {
    return own.computeIfAbsent(
        fork.name() + "/" + bucket,
        k -> MapStreams.ownUpdates(rt, fork.name(), bucket, fork.version()));
  }

  /**
   * Reads the meeting map's updates above {@code low} up to {@code high}, keeping each key's last
   * change; false on a clear or a trimmed range.
   */
  private boolean readUpdates(Set<K> touched) {
    for (int bucket = 0; bucket < buckets; bucket++) {
      Map<Object, Fate> last = new HashMap<>();
      fates.add(last);
      if (low == high) {
        continue;
      }
      List<ObjectUpdates> updates;
      try {
        updates = rt.updates(StreamId.of(CSMRMap.bucketStreamName(meet.name(), bucket)), low, high);
      } catch (TrimmedException e) {
        return false;
      }
      for (ObjectUpdates u : updates) {
        MapUpdate<K, V> m = MapUpdate.of(u);
        for (MapUpdate.Change<K, V> c :
            m == null ? List.<MapUpdate.Change<K, V>>of() : m.changes()) {
          switch (c.kind()) {
            case PUT -> last.put(c.key(), new Fate(c.value(), false));
            case REMOVE -> last.put(c.key(), REMOVED);
            case UPDATE_FIELDS -> last.put(c.key(), FIELDS);
            case CLEAR -> {
              return false;
            }
          }
          touched.add(c.key());
        }
      }
    }
    return true;
  }

  private MapDiff<K, V> compare(
      CSMRMap<K, V> map,
      List<Link> mine,
      long a,
      List<Link> theirs,
      long b,
      Set<K> touched,
      long at) {
    Map<K, V> now = new HashMap<>();
    Map<K, V> old = new HashMap<>();
    for (K key : touched) {
      int bucket = map.bucketOf(key);
      V mineValue = value(mine, a, key, bucket);
      if (mineValue != null) {
        now.put(key, mineValue);
      }
      V theirValue = value(theirs, b, key, bucket);
      if (theirValue != null) {
        old.put(key, theirValue);
      }
    }
    return difference(old, now, touched, at);
  }

  /** {@code key}'s value on a side: its nearest fork's, else the meeting map's as of {@code v}. */
  @SuppressWarnings("unchecked")
  private V value(List<Link> forks, long v, K key, int bucket) {
    for (Link fork : forks) {
      Object mine = state(fork, bucket).lookup(key);
      if (mine == ForkOverlay.REMOVED) {
        return null;
      }
      if (mine != null) {
        return (V) mine;
      }
    }
    Fate fate = v == high && v != low ? fates.get(bucket).get(key) : null;
    if (fate == null) {
      return meetBucket(bucket, low).get(key);
    }
    return fate.fields() ? meetBucket(bucket, high).get(key) : (V) fate.value();
  }

  private Bucket<K, V> meetBucket(int bucket, long version) {
    return meetBuckets.computeIfAbsent(
        version * buckets + bucket,
        k ->
            MapStreams.bucket(
                rt,
                meet.name(),
                meet.lineage(),
                bucket,
                CSMRMap.BucketViews.LOCAL,
                Version.at(version)));
  }

  /** Every key of both maps as of {@code at}, compared. */
  private static <K, V> MapDiff<K, V> whole(CSMRMap<K, V> map, CSMRMap<K, V> against, long at) {
    Map<K, V> now = new HashMap<>();
    Map<K, V> old = new HashMap<>();
    for (int i = 0; i < map.bucketCount(); i++) {
      now.putAll(map.bucketAt(i, at, false).snapshot());
    }
    for (int i = 0; i < against.bucketCount(); i++) {
      old.putAll(against.bucketAt(i, at, false).snapshot());
    }
    Set<K> keys = new HashSet<>(now.keySet());
    keys.addAll(old.keySet());
    return difference(old, now, keys, at);
  }

  private static <K, V> MapDiff<K, V> difference(
      Map<K, V> old, Map<K, V> now, Set<K> keys, long at) {
    Map<K, V> added = new HashMap<>();
    Map<K, V> removed = new HashMap<>();
    Map<K, MapDiff.ValueChange<V>> changed = new HashMap<>();
    for (K key : keys) {
      V before = old.get(key);
      V after = now.get(key);
      if (before == null && after != null) {
        added.put(key, after);
      } else if (before != null && after == null) {
        removed.put(key, before);
      } else if (before != null && !Objects.equals(before, after)) {
        changed.put(key, new MapDiff.ValueChange<>(before, after));
      }
    }
    return new MapDiff<>(at, at, added, removed, changed);
  }

  /** {@code map} as of {@code at}, then its parent as of its base, and so on. */
  static List<Link> chain(CSMRMap<?, ?> map, long at) {
    List<ForkBase> lineage = map.lineage();
    List<Link> chain = new ArrayList<>();
    chain.add(new Link(map.name(), at, lineage));
    for (int i = 0; i < lineage.size(); i++) {
      ForkBase base = lineage.get(i);
      chain.add(new Link(base.parent(), base.version(), lineage.subList(i + 1, lineage.size())));
    }
    return chain;
  }

  static int indexOf(List<Link> chain, String name) {
    for (int i = 0; i < chain.size(); i++) {
      if (chain.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
