package io.vcorfu.collections;

import io.vcorfu.collections.internal.CSMRMapLayout;
import io.vcorfu.collections.internal.ForkOverlay;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.ObjectUpdates;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.Version;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * Three-way merges of one {@link CSMRMap} into another (see {@link CSMRMap#merge(CSMRMap,
 * MergeResolver)}).
 *
 * <p><b>The common base.</b> The last merge between the two maps, in either direction (the one with
 * the later commit): the source as of the version the target merged, or the target as of the
 * version the source merged. Without one, where the two fork chains meet: the nearest map both
 * descend from (possibly one of the two), as of the older of the two versions of it they see. Two
 * maps with neither share no history and are refused.
 *
 * <p><b>Per key.</b> A key the source changed since the base (put, changed or removed: its value as
 * of the merged version differs from the base's) and the target did not is set to the source's
 * value in the target, or removed; a key only the target changed is kept; a key both changed to the
 * same value is kept; a key both changed to different values is a conflict, settled by the resolver
 * (or, with {@link MergePolicy#FAIL}, listed in a {@link MergeConflictException} with every other,
 * and nothing is written).
 *
 * <p><b>Reading the source.</b> The keys the source changed since the base come from the source's
 * updates since the base when the base is the source itself ({@link MapDiff}); where the fork
 * chains meet, from the keys the source's forks put or removed and those the meeting map's updates
 * after the base touched, each read in the base and in the source; else (after a clear, over a
 * trimmed range, or from the target as of an earlier merge) by comparing whole buckets.
 *
 * <p><b>Atomic.</b> The source is read as of one version (the log's snapshot when the attempt
 * starts) and joins no read set. The target's value of every key the source changed, and the
 * target's merge records, are read in one transaction, which writes every put and remove and the
 * merge record ({@link CSMRMapLayout#merged}) in one commit. A merge into the target committed
 * between the plan and the transaction's snapshot (it may have moved the base) makes it plan again
 * at once. A concurrent write to one of those keys, or a concurrent merge into the target, aborts
 * it; the merge is then planned again from a fresh snapshot (new base, new source version) and
 * tried again, up to the runtime's {@code maxTransactionAttempts} with its backoff, after which the
 * last {@link TransactionAbortedException} is thrown. Whatever is thrown, nothing was written.
 * Resolvers run once per attempt.
 */
final class MapMerge<K, V> {
  /**
   * The common base: a map (its fork chain) as of a version, chosen when the target had {@code
   * merges} merges recorded. Where the fork chains meet: {@code sourceForks} are the source's forks
   * below the meeting map and {@code sourceSees} the version of it the source sees; else null.
   */
  private record Base(
      String map,
      List<ForkBase> lineage,
      long version,
      int merges,
      List<ForkDiff.Link> sourceForks,
      long sourceSees) {}

  /** The target's merges changed between the plan and the transaction's snapshot: plan again. */
  private static final class StalePlan extends RuntimeException {
    StalePlan() {
      super(null, null, false, false);
    }
  }

  /** A key the source changed since the base: its value in the base and in the source. */
  private record Change<V>(V base, V source) {}

  private final VCorfuRuntime rt;
  private final CSMRMap<K, V> target;
  private final CSMRMap<K, V> source;
  private final MergeResolver<K, V> resolver;

  private MapMerge(
      VCorfuRuntime rt, CSMRMap<K, V> target, CSMRMap<K, V> source, MergeResolver<K, V> resolver) {
    this.rt = rt;
    this.target = target;
    this.source = source;
    this.resolver = resolver;
  }

  /**
   * See {@link CSMRMap#merge(CSMRMap, MergeResolver)}; {@code resolver} null: fail on conflicts.
   */
  static <K, V> MergeResult<K, V> merge(
      VCorfuRuntime rt, CSMRMap<K, V> target, CSMRMap<K, V> source, MergeResolver<K, V> resolver) {
    Objects.requireNonNull(source, "source");
    if (rt.inTransaction()) {
      throw new IllegalStateException(
          "merge into map '" + target.name() + "' outside transactions: it is one of its own");
    }
    if (source.name().equals(target.name())) {
      throw new MergeRefusedException(
          MergeRefusedException.Reason.SAME_MAP,
          "cannot merge map '" + source.name() + "' into itself",
          null);
    }
    MapMerge<K, V> merge = new MapMerge<>(rt, target, source, resolver);
    int attempts = Math.max(1, rt.options().maxTransactionAttempts());
    for (int attempt = 1; ; attempt++) {
      long version = MapFork.now(rt);
      Base base = merge.base(version);
      Map<K, Change<V>> changes = merge.sourceChanges(base, version);
      try {
        return merge.apply(base, version, changes);
      } catch (StalePlan e) {
        continue;
      } catch (TransactionAbortedException e) {
        if (attempt >= attempts || e.reason() == TransactionAbortedException.Reason.TRIMMED) {
          throw e;
        }
        backoff(rt, attempt);
      }
    }
  }

  /**
   * The merges into the map called {@code name} committed at or below global address {@code upTo},
   * oldest first: read back from its layout stream.
   */
  static List<MergeRecord> records(VCorfuRuntime rt, String name, long upTo) {
    List<MergeRecord> records = new ArrayList<>();
    if (upTo < 0) {
      return records;
    }
    for (ObjectUpdates u : rt.updates(CSMRMap.layoutStream(name), -1, upTo)) {
      for (ObjectUpdates.Update update : u.updates()) {
        if (update.methodName().equals("merged")) {
          Object[] args = update.args();
          records.add(
              new MergeRecord((String) args[0], ((Number) args[1]).longValue(), u.globalAddress()));
        }
      }
    }
    return records;
  }

  /** The common base as of {@code version} (see the class comment). */
  private Base base(long version) {
    List<MergeRecord> merges = records(rt, target.name(), version);
    MergeRecord intoTarget = last(merges, source.name());
    MergeRecord intoSource = last(records(rt, source.name(), version), target.name());
    if (intoTarget != null
        && (intoSource == null || intoTarget.targetVersion() > intoSource.targetVersion())) {
      return new Base(
          source.name(), source.lineage(), intoTarget.sourceVersion(), merges.size(), null, -1);
    }
    if (intoSource != null) {
      return new Base(
          target.name(), target.lineage(), intoSource.sourceVersion(), merges.size(), null, -1);
    }
    List<ForkDiff.Link> mine = ForkDiff.chain(target, version);
    List<ForkDiff.Link> theirs = ForkDiff.chain(source, version);
    for (ForkDiff.Link link : mine) {
      int j = ForkDiff.indexOf(theirs, link.name());
      if (j >= 0) {
        return new Base(
            link.name(),
            link.lineage(),
            Math.min(link.version(), theirs.get(j).version()),
            merges.size(),
            theirs.subList(0, j),
            theirs.get(j).version());
      }
    }
    throw new MergeRefusedException(
        MergeRefusedException.Reason.NO_COMMON_BASE,
        "cannot merge map '"
            + source.name()
            + "' into '"
            + target.name()
            + "': they share no history (neither is a fork of the other or of a common map, and"
            + " they were never merged)",
        null);
  }

  private static MergeRecord last(List<MergeRecord> records, String from) {
    MergeRecord last = null;
    for (MergeRecord r : records) {
      if (r.source().equals(from)) {
        last = r;
      }
    }
    return last;
  }

  /** The keys whose value in the source as of {@code version} differs from the base's. */
  private Map<K, Change<V>> sourceChanges(Base base, long version) {
    Map<K, Change<V>> changes = new HashMap<>();
    try {
      if (base.map().equals(source.name()) && base.version() <= version) {
        MapDiff<K, V> diff = source.diff(base.version(), version);
        diff.added().forEach((k, v) -> changes.put(k, new Change<>(null, v)));
        diff.removed().forEach((k, v) -> changes.put(k, new Change<>(v, null)));
        diff.changed().forEach((k, c) -> changes.put(k, new Change<>(c.before(), c.after())));
        return changes;
      }
      Map<Integer, Set<K>> touched = base.sourceForks() == null ? null : touched(base);
      for (int i = 0; i < target.bucketCount(); i++) {
        if (touched != null && !touched.containsKey(i)) {
          continue;
        }
        Bucket<K, V> baseBucket =
            MapStreams.bucket(
                rt,
                base.map(),
                base.lineage(),
                i,
                CSMRMap.BucketViews.LOCAL,
                Version.at(base.version()));
        if (touched != null) {
          Bucket<K, V> sourceBucket = source.bucketAt(i, version, false);
          for (K key : touched.get(i)) {
            V old = baseBucket.get(key);
            V now = sourceBucket.get(key);
            if (!Objects.equals(old, now)) {
              changes.put(key, new Change<>(old, now));
            }
          }
          continue;
        }
        Map<K, V> before = baseBucket.snapshot();
        Map<K, V> after = source.bucketAt(i, version, false).snapshot();
        after.forEach(
            (k, v) -> {
              V old = before.get(k);
              if (!v.equals(old)) {
                changes.put(k, new Change<>(old, v));
              }
            });
        before.forEach(
            (k, v) -> {
              if (!after.containsKey(k)) {
                changes.put(k, new Change<>(v, null));
              }
            });
      }
      return changes;
    } catch (RuntimeException e) {
      TrimmedException trimmed = MapFork.trimmed(e);
      if (trimmed == null) {
        throw e;
      }
      throw new MergeRefusedException(
          MergeRefusedException.Reason.BASE_UNAVAILABLE,
          "cannot merge map '"
              + source.name()
              + "' into '"
              + target.name()
              + "': their common base, map '"
              + base.map()
              + "' as of "
              + base.version()
              + ", was trimmed (below its retention)",
          trimmed);
    }
  }

  /**
   * The keys, by bucket, that can differ between the source and a base where the fork chains meet:
   * those the source's forks below the meeting map put or removed (their own state, nothing
   * replayed) and those the meeting map's updates after the base, up to the version the source
   * sees, touched (read back from its streams). Null when a clear or a trimmed range hides them:
   * then every key is compared.
   */
  private Map<Integer, Set<K>> touched(Base base) {
    Set<K> keys = new HashSet<>();
    for (ForkDiff.Link fork : base.sourceForks()) {
      for (int i = 0; i < target.bucketCount(); i++) {
        ForkOverlay.State<K, V> own = MapStreams.ownUpdates(rt, fork.name(), i, fork.version());
        if (own.cleared()) {
          return null;
        }
        keys.addAll(own.values().keySet());
        keys.addAll(own.removed().keySet());
      }
    }
    for (int i = 0; base.sourceSees() > base.version() && i < target.bucketCount(); i++) {
      List<ObjectUpdates> updates;
      try {
        updates =
            rt.updates(
                StreamId.of(CSMRMap.bucketStreamName(base.map(), i)),
                base.version(),
                base.sourceSees());
      } catch (TrimmedException e) {
        return null;
      }
      for (ObjectUpdates u : updates) {
        MapUpdate<K, V> m = MapUpdate.of(u);
        for (MapUpdate.Change<K, V> c :
            m == null ? List.<MapUpdate.Change<K, V>>of() : m.changes()) {
          if (c.kind() == MapUpdate.Kind.CLEAR) {
            return null;
          }
          keys.add(c.key());
        }
      }
    }
    Map<Integer, Set<K>> byBucket = new HashMap<>();
    for (K key : keys) {
      byBucket.computeIfAbsent(source.bucketOf(key), b -> new HashSet<>()).add(key);
    }
    return byBucket;
  }

  /** One attempt: one transaction on the target (see the class comment). */
  private MergeResult<K, V> apply(Base base, long version, Map<K, Change<V>> changes) {
    Map<K, V> added = new HashMap<>();
    Map<K, V> removed = new HashMap<>();
    Map<K, MapDiff.ValueChange<V>> changed = new HashMap<>();
    Set<K> conflicts = new HashSet<>();
    Set<K> unresolved = new HashSet<>();
    CSMRMapLayout layout = MapStreams.layout(rt, target.name());
    rt.TXBegin();
    try {
      // Joins the read set (a concurrent merge into the target is a conflict) and catches a merge
      // committed between the plan and this snapshot, which may have moved the base.
      if (layout.merges() != base.merges()) {
        throw new StalePlan();
      }
      for (Map.Entry<K, Change<V>> e : changes.entrySet()) {
        K key = e.getKey();
        Change<V> c = e.getValue();
        V mine = target.get(key);
        V merged;
        if (Objects.equals(mine, c.base())) {
          merged = c.source();
        } else if (Objects.equals(mine, c.source())) {
          continue;
        } else {
          conflicts.add(key);
          if (resolver == null) {
            unresolved.add(key);
            continue;
          }
          merged =
              resolver
                  .resolve(
                      key,
                      Optional.ofNullable(c.base()),
                      Optional.ofNullable(mine),
                      Optional.ofNullable(c.source()))
                  .orElse(null);
        }
        if (Objects.equals(merged, mine)) {
          continue;
        }
        if (merged == null) {
          target.remove(key);
          removed.put(key, mine);
        } else {
          target.fastPut(key, merged);
          if (mine == null) {
            added.put(key, merged);
          } else {
            changed.put(key, new MapDiff.ValueChange<>(mine, merged));
          }
        }
      }
      if (!unresolved.isEmpty()) {
        throw new MergeConflictException(target.name(), source.name(), unresolved);
      }
      layout.merged(source.name(), version);
    } catch (RuntimeException e) {
      rt.TXAbort();
      throw e;
    }
    long commit = rt.TXEnd();
    return new MergeResult<>(
        source.name(),
        version,
        base.map(),
        base.version(),
        commit,
        new MapDiff<>(commit - 1, commit, added, removed, changed),
        conflicts);
  }

  /** Waits before another attempt: exponential, with jitter, within the runtime's backoff. */
  private static void backoff(VCorfuRuntime rt, int attempt) {
    long initial = Math.max(1, rt.options().backoffInitial().toNanos());
    long max = Math.max(initial, rt.options().backoffMax().toNanos());
    long ceiling = Math.min(max, initial << Math.min(attempt - 1, 30));
    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1));
  }
}
