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
 */
@Command(
    name = "diff",
    mixinStandardHelpOptions = true,
    description =
        "Time to diff two versions of a large map: CSMRMap.diff against comparing two snapshot"
            + " views of every bucket.")
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
      from = -1;
      for (int k = 0; k < keys; k += FILL_BATCH) {
        Map<String, Long> batch = new HashMap<>();
        for (int i = k; i < Math.min(keys, k + FILL_BATCH); i++) {
          batch.put("k" + i, 0L);
        }
        rt.TXBegin();
        map.putAll(batch);
        from = rt.TXEnd();
      }
      SplittableRandom random = new SplittableRandom(42);
      to = from;
      for (int c = 0; c < changes; c++) {
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
