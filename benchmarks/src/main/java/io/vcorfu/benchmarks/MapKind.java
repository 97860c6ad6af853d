package io.vcorfu.benchmarks;

import io.vcorfu.collections.CSMRMap;
import io.vcorfu.collections.SMRMap;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.Locale;
import java.util.Map;

/**
 * The replicated maps the collection benchmarks compare. Each opens a map of {@code String} keys
 * and {@code byte[]} values in a runtime, as a local view (the client plays the map's updates back
 * itself) or as a remote view (the node hosting the map's stream applies them and answers calls).
 */
enum MapKind {
  /** {@link SMRMap}: one object on one stream; every update to any key is in its history. */
  SMR(false) {
    @Override
    @SuppressWarnings("unchecked")
    Opened open(VCorfuRuntime rt, String name, int buckets, boolean remote) {
      SMRMap<String, byte[]> m =
          remote
              ? rt.objects().builder(name, SMRMap.class).remote().open()
              : rt.objects().open(name, SMRMap.class);
      return new Opened(m, m::fastPut);
    }
  },
  /**
   * {@link CSMRMap}: {@code buckets} bucket maps, each on its own stream; reading one key plays
   * back (or asks the host of) one bucket only. A remote view makes every bucket a remote view.
   */
  CSMR(true) {
    @Override
    Opened open(VCorfuRuntime rt, String name, int buckets, boolean remote) {
      CSMRMap<String, byte[]> m =
          CSMRMap.open(
              rt, name, buckets, remote ? CSMRMap.BucketViews.REMOTE : CSMRMap.BucketViews.LOCAL);
      return new Opened(m, m::fastPut);
    }
  };

  /** A map as the benchmarks use it: the {@code Map} plus its blind write. */
  record Opened(Map<String, byte[]> map, FastPut fastPut) {}

  /** A write that appends without reading the map. */
  @FunctionalInterface
  interface FastPut {
    void put(String key, byte[] value);
  }

  private final boolean bucketed;

  MapKind(boolean bucketed) {
    this.bucketed = bucketed;
  }

  /** Whether the map is split into a chosen number of buckets (otherwise it has exactly one). */
  boolean bucketed() {
    return bucketed;
  }

  /**
   * Opens the map {@code name} in {@code rt}. {@code buckets} is the bucket count a bucketed kind
   * is created with (every opener must pass the same one); unbucketed kinds ignore it.
   */
  abstract Opened open(VCorfuRuntime rt, String name, int buckets, boolean remote);

  /** The lower-case name used on the command line and in output lines. */
  String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a command-line name (any case). */
  static MapKind parse(String s) {
    for (MapKind k : values()) {
      if (k.label().equalsIgnoreCase(s.trim())) {
        return k;
      }
    }
    StringBuilder known = new StringBuilder();
    for (MapKind k : values()) {
      known.append(known.length() == 0 ? "" : ", ").append(k.label());
    }
    throw new IllegalArgumentException("unknown map kind '" + s + "'; the kinds are " + known);
  }
}
