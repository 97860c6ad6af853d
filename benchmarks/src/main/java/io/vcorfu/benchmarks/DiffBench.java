package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.collections.MapDiff;
import io.vcorfu.collections.SMRMap;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench diff}: the time to diff two versions of a large map. Fills a map of {@code
 * --keys} keys over {@code --buckets} buckets ({@code putAll} transactions of 1,000 keys), takes
 * that version, then commits {@code --changes} changes (a put of a new value, a put of a new key or
 * a remove, at random keys) and takes that version. From a fresh client each time, diffs the two
 * versions {@code --repeat} times two ways: with {@link CSMRMap#diff} (the updates between them,
 * applied to the older state of the buckets they touch), and as a client would without it (every
 * bucket as of each version, as snapshot views, compared whole). Both must find the same
 * differences (the run fails otherwise). Reports the median and the slowest of each.
 *
 * <p>With {@code --fork}: forks the filled map as of its last version ({@link CSMRMap#fork}) {@code
 * --repeat} times, each from a fresh client, and times each creation; then commits {@code
 * --changes} changes, half to the map and half to its first fork, and diffs the fork against the
 * map ({@link CSMRMap#diff(CSMRMap)}: only the keys touched since the fork's base are compared)
 * {@code --repeat} times from a fresh client, against comparing the two maps' snapshots whole.
 */
@Command(
    name = "diff",
    mixinStandardHelpOptions = true,
    description =
        "Time to diff two versions of a large map: CSMRMap.diff against comparing two snapshot"
            + " views of every bucket; with --fork, the time to fork the map and to diff the fork"
            + " against the map.")
final class DiffBench extends ClusterBench {
  private static final int FILL_BATCH = 1_000;

  @Option(
      names = "--keys",
      defaultValue = "100000",
      description = "Keys in the map (default ${DEFAULT-VALUE}).")
  int keys;

  @Option(
      names = "--buckets",
      defaultValue = "16",
      description = "Buckets of the map (default ${DEFAULT-VALUE}).")
  int buckets;

  @Option(
      names = "--changes",
      defaultValue = "100",
      description = "Changes between the two versions (default ${DEFAULT-VALUE}).")
  int changes;

  @Option(
      names = "--repeat",
      defaultValue = "5",
      description = "Diffs of each kind (default ${DEFAULT-VALUE}).")
  int repeat;

  @Option(
      names = "--fork",
      description = "Time forking the map and diffing the fork against it instead.")
  boolean fork;

  @Override
  public Integer call() throws Exception {
    if (keys < 1 || buckets < 1 || changes < 1 || repeat < 1) {
      throw new IllegalArgumentException(
          "--keys, --buckets, --changes and --repeat must be at least 1");
    }
    String name = "bench-diff-" + UUID.randomUUID();
    long from;
    long to;
    try (VCorfuRuntime rt = connect()) {
      CSMRMap<String, Long> map = CSMRMap.open(rt, name, buckets);
      from = fill(rt, map);
      if (fork) {
        return forks(name, from);
      }
      to = change(rt, List.of(map), from);
    }
    List<Long> diffNanos = new ArrayList<>();
    List<Long> wholeNanos = new ArrayList<>();
    int differences = -1;
    for (int r = 0; r < repeat; r++) {
      MapDiff<String, Long> diff;
      try (VCorfuRuntime rt = connect()) {
        CSMRMap<String, Long> map = CSMRMap.open(rt, name);
        long t0 = System.nanoTime();
        diff = map.diff(from, to);
        diffNanos.add(System.nanoTime() - t0);
      }
      try (VCorfuRuntime rt = connect()) {
        long t1 = System.nanoTime();
        int whole = compareWhole(rt, name, from, to);
        wholeNanos.add(System.nanoTime() - t1);
        differences = diff.added().size() + diff.removed().size() + diff.changed().size();
        if (whole != differences || differences == 0) {
          throw new IllegalStateException(
              "the diff found " + differences + " differences, the snapshots " + whole);
        }
      }
    }
    ObjectNode result =
        BenchOutput.result("diff")
            .put("keys", keys)
            .put("buckets", buckets)
            .put("changes", changes)
            .put("differences", differences);
    double[] d = BenchOutput.putMedianAndMax(result, "diff", diffNanos);
    double[] w = BenchOutput.putMedianAndMax(result, "snapshots", wholeNanos);
    output.print(
        result,
        String.format(
            "diff of a map of %d keys in %d buckets across %d changes (%d differences), fresh"
                + " client each time: CSMRMap.diff median %.1f ms (max %.1f); two snapshot views"
                + " of every bucket compared whole median %.1f ms (max %.1f)",
            keys, buckets, changes, differences, d[0], d[1], w[0], w[1]));
    return 0;
  }

  /** Fills {@code map} with {@code --keys} keys; returns the global address of the last fill. */
  private long fill(VCorfuRuntime rt, CSMRMap<String, Long> map) {
    long last = -1;
    for (int k = 0; k < keys; k += FILL_BATCH) {
      Map<String, Long> batch = new HashMap<>();
      for (int i = k; i < Math.min(keys, k + FILL_BATCH); i++) {
        batch.put("k" + i, 0L);
      }
      rt.TXBegin();
      map.putAll(batch);
      last = rt.TXEnd();
    }
    return last;
  }

  /**
   * Commits {@code --changes} changes at random keys, in turn to each of {@code maps}; returns the
   * global address of the last.
   */
  private long change(VCorfuRuntime rt, List<CSMRMap<String, Long>> maps, long from) {
    SplittableRandom random = new SplittableRandom(42);
    long to = from;
    for (int c = 0; c < changes; c++) {
      CSMRMap<String, Long> map = maps.get(c % maps.size());
      int kind = random.nextInt(3);
      rt.TXBegin();
      if (kind == 0) {
        map.fastPut("k" + random.nextInt(keys), (long) c + 1);
      } else if (kind == 1) {
        map.fastPut("new" + c, (long) c);
      } else {
        map.remove("k" + random.nextInt(keys));
      }
      to = rt.TXEnd();
    }
    return to;
  }

  /** The {@code --fork} run: fork creation, then the fork diffed against the map. */
  private int forks(String name, long base) {
    List<Long> forkNanos = new ArrayList<>();
    for (int r = 0; r < repeat; r++) {
      try (VCorfuRuntime rt = connect()) {
        CSMRMap<String, Long> map = CSMRMap.open(rt, name);
        long t0 = System.nanoTime();
        map.fork(name + "-fork-" + r, base);
        forkNanos.add(System.nanoTime() - t0);
      }
    }
    try (VCorfuRuntime rt = connect()) {
      change(rt, List.of(CSMRMap.open(rt, name), CSMRMap.open(rt, name + "-fork-0")), base);
    }
    List<Long> diffNanos = new ArrayList<>();
    List<Long> wholeNanos = new ArrayList<>();
    int differences = -1;
    for (int r = 0; r < repeat; r++) {
      MapDiff<String, Long> diff;
      try (VCorfuRuntime rt = connect()) {
        CSMRMap<String, Long> map = CSMRMap.open(rt, name);
        CSMRMap<String, Long> forked = CSMRMap.open(rt, name + "-fork-0");
        long t0 = System.nanoTime();
        diff = forked.diff(map);
        diffNanos.add(System.nanoTime() - t0);
      }
      try (VCorfuRuntime rt = connect()) {
        long t1 = System.nanoTime();
        Map<String, Long> a = CSMRMap.<String, Long>open(rt, name + "-fork-0").snapshot();
        Map<String, Long> b = CSMRMap.<String, Long>open(rt, name).snapshot();
        int whole = differ(a, b);
        wholeNanos.add(System.nanoTime() - t1);
        differences = diff.added().size() + diff.removed().size() + diff.changed().size();
        if (whole != differences || differences == 0) {
          throw new IllegalStateException(
              "the diff found " + differences + " differences, the snapshots " + whole);
        }
      }
    }
    ObjectNode result =
        BenchOutput.result("fork")
            .put("keys", keys)
            .put("buckets", buckets)
            .put("changes", changes)
            .put("differences", differences);
    double[] f = BenchOutput.putMedianAndMax(result, "fork", forkNanos);
    double[] d = BenchOutput.putMedianAndMax(result, "diff", diffNanos);
    double[] w = BenchOutput.putMedianAndMax(result, "snapshots", wholeNanos);
    output.print(
        result,
        String.format(
            "fork of a map of %d keys in %d buckets, fresh client each time: CSMRMap.fork median"
                + " %.1f ms (max %.1f); fork against map after %d changes (%d differences):"
                + " CSMRMap.diff median %.1f ms (max %.1f); both snapshots compared whole median"
                + " %.1f ms (max %.1f)",
            keys, buckets, f[0], f[1], changes, differences, d[0], d[1], w[0], w[1]));
    return 0;
  }

  /** How many keys differ between {@code a} and {@code b}. */
  private static int differ(Map<String, Long> a, Map<String, Long> b) {
    int differ = 0;
    for (Map.Entry<String, Long> e : a.entrySet()) {
      if (!Objects.equals(b.get(e.getKey()), e.getValue())) {
        differ++;
      }
    }
    for (String k : b.keySet()) {
      if (!a.containsKey(k)) {
        differ++;
      }
    }
    return differ;
  }

  /** The keys that differ between every bucket as of {@code from} and as of {@code to}. */
  @SuppressWarnings("unchecked")
  private static int compareWhole(VCorfuRuntime rt, String name, long from, long to) {
    int buckets = CSMRMap.open(rt, name).bucketCount();
    int differ = 0;
    for (int i = 0; i < buckets; i++) {
      StreamId stream = StreamId.of(CSMRMap.bucketStreamName(name, i));
      Map<String, Long> before =
          rt.objects().builder(stream, SMRMap.class).asOf(from).open().snapshot();
      Map<String, Long> after =
          rt.objects().builder(stream, SMRMap.class).asOf(to).open().snapshot();
      for (Map.Entry<String, Long> e : after.entrySet()) {
        if (!Objects.equals(before.get(e.getKey()), e.getValue())) {
          differ++;
        }
      }
      for (String k : before.keySet()) {
        if (!after.containsKey(k)) {
          differ++;
        }
      }
    }
    return differ;
  }

  /** A client that trims nothing: both versions must be kept. */
  private VCorfuRuntime connect() {
    return VCorfuRuntime.connect(
        endpoint, RuntimeOptions.defaults().withRetention(Retention.OFF), logOptions());
  }
}
