package io.vcorfu.collections;

import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.collections.internal.CSMRMapLayout;
import io.vcorfu.collections.internal.ForkOverlay;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ObjectOpenException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The streams behind a {@link CSMRMap} and how they are opened: its layout object (bucket count
 * and, for a fork, its base), its name in the name directory, and its buckets, live or as of a
 * version, for a map or a fork at any depth.
 */
final class MapStreams {
  private MapStreams() {}

  /** See {@link CSMRMap#open(VCorfuRuntime, String, int, CSMRMap.BucketViews)}. */
  static <K, V> CSMRMap<K, V> openOrCreate(
      VCorfuRuntime rt, String name, int buckets, CSMRMap.BucketViews views) {
    if (buckets < 1) {
      throw new IllegalArgumentException("a CSMRMap needs at least 1 bucket, not " + buckets);
    }
    Objects.requireNonNull(views, "views");
    CSMRMapLayout layout = layout(rt, name);
    int stored = layout.buckets();
    if (stored != 0 && stored != buckets) {
      throw new BucketCountMismatchException(name, stored, buckets);
    }
    // Listed before it is created (and before anything is written in it): see NameDirectory.
    register(rt, name, stored == 0 ? buckets : stored);
    if (stored == 0) {
      stored = layout.create(buckets);
    }
    if (stored != buckets) {
      throw new BucketCountMismatchException(name, stored, buckets);
    }
    return new CSMRMap<>(rt, name, stored, views, lineage(rt, layout));
  }

  /** See {@link CSMRMap#open(VCorfuRuntime, String, CSMRMap.BucketViews)}. */
  static <K, V> CSMRMap<K, V> openExisting(
      VCorfuRuntime rt, String name, CSMRMap.BucketViews views) {
    CSMRMapLayout layout = layout(rt, name);
    int stored = layout.buckets();
    if (stored == 0) {
      throw new ObjectOpenException(
          "map "
              + name
              + " has not been created: open it once with a bucket count, "
              + "CSMRMap.open(rt, \""
              + name
              + "\", buckets)");
    }
    Objects.requireNonNull(views, "views");
    register(rt, name, stored);
    return new CSMRMap<>(rt, name, stored, views, lineage(rt, layout));
  }

  /** The streams of the {@code count} buckets of the map called {@code name}, in bucket order. */
  static List<StreamId> bucketStreams(String name, int count) {
    List<StreamId> ids = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ids.add(StreamId.of(CSMRMap.bucketStreamName(name, i)));
    }
    return ids;
  }

  /** The layout object of the map called {@code name} (a live local view). */
  static CSMRMapLayout layout(VCorfuRuntime rt, String name) {
    return rt.objects()
        .builder(CSMRMap.layoutStream(Objects.requireNonNull(name, "name")), CSMRMapLayout.class)
        .describedAs(describe(name))
        .open();
  }

  /**
   * Lists the map in the name directory (kind {@link DirectoryEntry#MAP}, its layout stream, its
   * bucket count), unless this runtime knows it is listed.
   */
  static void register(VCorfuRuntime rt, String name, int buckets) {
    rt.registerName(
        DirectoryEntry.of(
            DirectoryEntry.MAP,
            name,
            CSMRMap.class.getName(),
            CSMRMap.layoutStream(name),
            buckets));
  }

  /** How messages name the map called {@code name} and each of its streams. */
  static String describe(String name) {
    return "map '" + name + "'";
  }

  /**
   * The bases of a created map's fork chain, nearest first: empty for a map that is not a fork; for
   * a fork its own base, then its parent's if the parent is a fork, and so on. Read from the
   * layouts, which never change once created.
   */
  static List<ForkBase> lineage(VCorfuRuntime rt, CSMRMapLayout layout) {
    List<ForkBase> chain = new ArrayList<>();
    CSMRMapLayout at = layout;
    while (at.parent() != null) {
      chain.add(new ForkBase(at.parent(), at.base()));
      at = layout(rt, at.parent());
    }
    return List.copyOf(chain);
  }

  /**
   * Bucket {@code index} of the map called {@code name} whose fork chain is {@code lineage}, as of
   * {@code version} ({@link Version#LIVE}: the live view). A map's bucket is its {@link SMRMap}; a
   * fork's is its own updates over the parent's bucket as of the fork's base (a local view: {@code
   * views} applies to maps only).
   */
  static <K, V> Bucket<K, V> bucket(
      VCorfuRuntime rt,
      String name,
      List<ForkBase> lineage,
      int index,
      CSMRMap.BucketViews views,
      Version version) {
    return bucket(rt, name, lineage, index, views, version, false);
  }

  /** Bucket {@code index} as of {@code version}, a read-only local view; {@code held} as below. */
  static <K, V> Bucket<K, V> bucketAt(
      VCorfuRuntime rt,
      String name,
      List<ForkBase> lineage,
      int index,
      long version,
      boolean held) {
    return bucket(rt, name, lineage, index, CSMRMap.BucketViews.LOCAL, Version.at(version), held);
  }

  /**
   * As above; {@code held}: a snapshot version of a map whose history the caller's fork holds (see
   * {@link MapFork}), opened {@link io.vcorfu.runtime.ObjectBuilder#underHold() under the hold}, so
   * that it holds back no client's trims. A fork's parent bucket, as of its base, is always opened
   * so: the fork's hold keeps that base readable for as long as the fork exists.
   */
  @SuppressWarnings("unchecked")
  static <K, V> Bucket<K, V> bucket(
      VCorfuRuntime rt,
      String name,
      List<ForkBase> lineage,
      int index,
      CSMRMap.BucketViews views,
      Version version,
      boolean held) {
    StreamId stream = StreamId.of(CSMRMap.bucketStreamName(name, index));
    if (lineage.isEmpty()) {
      var builder =
          rt.objects().builder(stream, SMRMap.class).describedAs(describe(name)).asOf(version);
      if (held) {
        builder.underHold();
      }
      return views == CSMRMap.BucketViews.REMOTE ? builder.remote().open() : builder.open();
    }
    var ownBuilder =
        rt.objects().builder(stream, ForkOverlay.class).describedAs(describe(name)).asOf(version);
    if (held) {
      ownBuilder.underHold();
    }
    ForkOverlay<K, V> own = ownBuilder.open();
    ForkBase base = lineage.get(0);
    Bucket<K, V> parent =
        bucket(
            rt,
            base.parent(),
            lineage.subList(1, lineage.size()),
            index,
            CSMRMap.BucketViews.LOCAL,
            Version.at(base.version()),
            true);
    return new ForkBucket<>(rt, own, parent);
  }

  /**
   * The own updates of bucket {@code index} of the fork called {@code name} as of {@code version}
   * (a snapshot view's state: O(1) when this runtime has the fork open).
   */
  @SuppressWarnings("unchecked")
  static <K, V> ForkOverlay.State<K, V> ownUpdates(
      VCorfuRuntime rt, String name, int index, long version) {
    ForkOverlay<K, V> own =
        rt.objects()
            .builder(StreamId.of(CSMRMap.bucketStreamName(name, index)), ForkOverlay.class)
            .describedAs(describe(name))
            .asOf(version)
            .open();
    return own.state();
  }
}
