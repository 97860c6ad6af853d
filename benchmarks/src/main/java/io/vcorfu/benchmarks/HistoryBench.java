package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.collections.KeyVersion;
import io.vcorfu.collections.SMRMap;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ObjectHistory;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench history}: the time to list a key's newest versions. Writes {@code --versions}
 * versions of one key of a one-bucket map ({@code --noise} updates of other keys of the same bucket
 * between two of them), then, from a fresh client each time, lists the newest {@code --newest}
 * versions {@code --repeat} times two ways: with {@link CSMRMap#history} (reads the bucket's
 * entries back from the tail, no replay), and as a snapshot reader would without it (a snapshot
 * view of the bucket at each of those versions' addresses, each rebuilt by the runtime). Reports
 * the median and the slowest of each.
 */
@Command(
    name = "history",
    mixinStandardHelpOptions = true,
    description =
        "Time to list a key's newest versions: CSMRMap.history against a snapshot view per"
            + " version.")
final class HistoryBench extends ClusterBench {
  @Option(
      names = "--versions",
      defaultValue = "10000",
      description = "Versions of the key (default ${DEFAULT-VALUE}).")
  int versions;

  @Option(
      names = "--newest",
      defaultValue = "100",
      description = "Versions listed (default ${DEFAULT-VALUE}).")
  int newest;

  @Option(
      names = "--noise",
      defaultValue = "0",
      description = "Updates of other keys between two versions (default ${DEFAULT-VALUE}).")
  int noise;

  @Option(
      names = "--repeat",
      defaultValue = "5",
      description = "Listings of each kind (default ${DEFAULT-VALUE}).")
  int repeat;

  @Override
  public Integer call() throws Exception {
    if (versions < 1 || newest < 1 || newest > versions || noise < 0 || repeat < 1) {
      throw new IllegalArgumentException(
          "--versions, --newest and --repeat must be at least 1, --newest at most --versions,"
              + " --noise 0 or more");
    }
    String name = "bench-history-" + UUID.randomUUID();
    try (VCorfuRuntime rt = connect()) {
      CSMRMap<String, Integer> map = CSMRMap.open(rt, name, 1);
      for (int v = 0; v < versions; v++) {
        map.fastPut("key", v);
        for (int n = 0; n < noise; n++) {
          map.fastPut("noise-" + n, v);
        }
      }
    }
    List<Long> historyNanos = new ArrayList<>();
    List<Long> snapshotNanos = new ArrayList<>();
    for (int r = 0; r < repeat; r++) {
      try (VCorfuRuntime rt = connect()) {
        CSMRMap<String, Integer> map = CSMRMap.open(rt, name);
        long t0 = System.nanoTime();
        ObjectHistory<KeyVersion<Integer>> h = map.history("key", Long.MAX_VALUE, newest);
        historyNanos.add(System.nanoTime() - t0);
        check(h.items().size() == newest && h.items().get(0).value() == versions - 1, "history");
        List<Long> addresses = h.items().stream().map(KeyVersion::globalAddress).toList();
        try (VCorfuRuntime other = connect()) {
          StreamId bucket = StreamId.of(CSMRMap.bucketStreamName(name, 0));
          long t1 = System.nanoTime();
          int seen = 0;
          for (long a : addresses) {
            @SuppressWarnings("unchecked")
            SMRMap<String, Integer> then =
                other.objects().builder(bucket, SMRMap.class).asOf(a).open();
            if (then.get("key") != null) {
              seen++;
            }
          }
          snapshotNanos.add(System.nanoTime() - t1);
          check(seen == newest, "snapshots");
        }
      }
    }
    ObjectNode result =
        BenchOutput.result("history")
            .put("versions", versions)
            .put("newest", newest)
            .put("noise", noise);
    double[] h = BenchOutput.putMedianAndMax(result, "history", historyNanos);
    double[] s = BenchOutput.putMedianAndMax(result, "snapshots", snapshotNanos);
    output.print(
        result,
        String.format(
            "history of a key with %d versions (%d other updates between two), newest %d, fresh"
                + " client each time: CSMRMap.history median %.1f ms (max %.1f); a snapshot view"
                + " per version median %.1f ms (max %.1f)",
            versions, noise, newest, h[0], h[1], s[0], s[1]));
    return 0;
  }

  /** A client that trims nothing: the versions listed must all be kept. */
  private VCorfuRuntime connect() {
    return VCorfuRuntime.connect(
        endpoint, RuntimeOptions.defaults().withRetention(Retention.OFF), logOptions());
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("the " + what + " listing did not find the versions written");
    }
  }
}
