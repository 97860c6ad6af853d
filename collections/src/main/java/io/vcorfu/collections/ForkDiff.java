package io.vcorfu.collections;

import io.vcorfu.collections.internal.ForkOverlay;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.ObjectUpdates;
import io.vcorfu.runtime.VCorfuRuntime;
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
 * parent's base, and so on. Where the two chains meet (the nearest map both descend from, possibly
 * one of the two themselves), at versions {@code a} and {@code b}, the two sides share that map's
 * state as of {@code min(a, b)}; they can differ only in the keys touched above it: the keys every
 * fork below the meeting point put or removed (read from the forks' own state, nothing replayed)
 * and the keys the meeting map's updates between {@code min(a, b)} and {@code max(a, b)} touched
 * (read back from its streams). Only those keys are compared. A clear on either side, a trimmed
 * range, or two maps without a common base fall back to comparing every key of both.
 */
final class ForkDiff {
  private ForkDiff() {}

  /** One link of a chain: a map and the version of it the chain sees. */
  private record Link(String name, long version) {}

  static <K, V> MapDiff<K, V> of(
      VCorfuRuntime rt, CSMRMap<K, V> map, CSMRMap<K, V> against, long at) {
    List<Link> mine = chain(map, at);
    List<Link> theirs = chain(against, at);
    Set<K> touched = new HashSet<>();
    boolean whole = true;
    for (int i = 0; i < mine.size(); i++) {
      int j = indexOf(theirs, mine.get(i).name());
      if (j >= 0) {
        whole = !touchedAbove(rt, map.bucketCount(), mine, i, theirs, j, touched);
        break;
      }
    }
    List<Bucket<K, V>> a = buckets(map, at);
    List<Bucket<K, V>> b = buckets(against, at);
    Set<K> keys = touched;
    if (whole) {
      keys = new HashSet<>();
      for (Bucket<K, V> x : a) {
        keys.addAll(x.snapshot().keySet());
      }
      for (Bucket<K, V> x : b) {
        keys.addAll(x.snapshot().keySet());
      }
    }
    Map<K, V> added = new HashMap<>();
    Map<K, V> removed = new HashMap<>();
    Map<K, MapDiff.ValueChange<V>> changed = new HashMap<>();
    for (K key : keys) {
      V now = a.get(map.bucketOf(key)).get(key);
      V old = b.get(against.bucketOf(key)).get(key);
      if (old == null && now != null) {
        added.put(key, now);
      } else if (old != null && now == null) {
        removed.put(key, old);
      } else if (old != null && !Objects.equals(old, now)) {
        changed.put(key, new MapDiff.ValueChange<>(old, now));
      }
    }
    return new MapDiff<>(at, at, added, removed, changed);
  }

  /**
   * Adds to {@code touched} every key the two chains may differ in above where they meet ({@code
   * mine[i]} and {@code theirs[j]} name one map); false when that cannot be told (a clear, a
   * trimmed range): then every key is compared.
   */
  private static <K> boolean touchedAbove(
      VCorfuRuntime rt,
      int buckets,
      List<Link> mine,
      int i,
      List<Link> theirs,
      int j,
      Set<K> touched) {
    List<Link> forks = new ArrayList<>(mine.subList(0, i));
    forks.addAll(theirs.subList(0, j));
    for (Link fork : forks) {
      for (int bucket = 0; bucket < buckets; bucket++) {
        ForkOverlay.State<K, ?> own =
            MapStreams.ownUpdates(rt, fork.name(), bucket, fork.version());
        if (own.cleared()) {
          return false;
        }
        touched.addAll(own.values().keySet());
        touched.addAll(own.removed().keySet());
      }
    }
    long from = Math.min(mine.get(i).version(), theirs.get(j).version());
    long to = Math.max(mine.get(i).version(), theirs.get(j).version());
    if (from == to) {
      return true;
    }
    for (int bucket = 0; bucket < buckets; bucket++) {
      StreamId stream = StreamId.of(CSMRMap.bucketStreamName(mine.get(i).name(), bucket));
      List<ObjectUpdates> updates;
      try {
        updates = rt.updates(stream, from, to);
      } catch (TrimmedException e) {
        return false;
      }
      for (ObjectUpdates u : updates) {
        MapUpdate<K, Object> m = MapUpdate.of(u);
        for (MapUpdate.Change<K, Object> c :
            m == null ? List.<MapUpdate.Change<K, Object>>of() : m.changes()) {
          if (c.kind() == MapUpdate.Kind.CLEAR) {
            return false;
          }
          touched.add(c.key());
        }
      }
    }
    return true;
  }

  /** {@code map} as of {@code at}, then its parent as of its base, and so on. */
  private static List<Link> chain(CSMRMap<?, ?> map, long at) {
    List<Link> chain = new ArrayList<>();
    chain.add(new Link(map.name(), at));
    for (ForkBase base : map.lineage()) {
      chain.add(new Link(base.parent(), base.version()));
    }
    return chain;
  }

  private static int indexOf(List<Link> chain, String name) {
    for (int i = 0; i < chain.size(); i++) {
      if (chain.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static <K, V> List<Bucket<K, V>> buckets(CSMRMap<K, V> map, long at) {
    List<Bucket<K, V>> out = new ArrayList<>(map.bucketCount());
    for (int i = 0; i < map.bucketCount(); i++) {
      out.add(map.bucketAt(i, at));
    }
    return out;
  }
}
