package io.vcorfu.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench collections --mode open|aborts|clear}: the costs and benefits of composing a
 * map from buckets (the vCorfu paper's Figures 16 and 17), for every chosen map kind, bucket count
 * and key distribution. Each measurement prints one line starting {@code collections mode=} (with
 * {@code --output json} one JSON object, see {@link CollectionWorkloads}); a configuration that
 * fails prints {@code ...: could not run: ...} and the run goes on (exit 0).
 */
@Command(
    name = "collections",
    mixinStandardHelpOptions = true,
    description = {
      "Collection benchmarks (paper Figures 16 and 17).",
      "Modes:",
      "open: write 1 KB values with fastPut up to each of --steps update counts",
      "  (--max-updates at most) and time a new runtime opening a local view",
      "  and reading one key, --reps times per step (p50 and max).",
      "aborts: --writers-list W writer threads, each its own runtime, run",
      "  transactions (read 2 keys, fastPut 1) for --duration seconds; prints",
      "  committed, aborted and the abort rate. --threads is not used.",
      "clear: a map filled with --clear-keys keys; a new runtime opens a local or",
      "  remote view and times clear() then size(), --reps times.",
      ""
    })
final class CollectionsBench extends ClusterBench {
  static final List<String> MODES = List.of("open", "aborts", "clear");

  @Option(names = "--mode", required = true, description = "One of: open, aborts, clear.")
  String mode;

  @Option(
      names = "--kinds",
      defaultValue = "smr,csmr",
      split = ",",
      description =
          "Map kinds, comma-separated: smr (SMRMap), csmr (CSMRMap) (default ${DEFAULT-VALUE}).")
  List<String> kinds;

  @Option(
      names = "--buckets",
      defaultValue = "10,100,1000",
      split = ",",
      description = "Bucket counts for bucketed kinds (default ${DEFAULT-VALUE}).")
  List<Integer> buckets;

  @Option(
      names = "--dists",
      defaultValue = "uniform,zipf",
      split = ",",
      description =
          "Key distributions for open and aborts: uniform, zipf (theta 0.99) (default"
              + " ${DEFAULT-VALUE}).")
  List<String> dists;

  @Option(
      names = "--keys",
      defaultValue = "100000",
      description = "Key space the distributions draw from (default ${DEFAULT-VALUE}).")
  long keys;

  @Option(
      names = "--value-size",
      defaultValue = "1024",
      description = "Bytes per value (default ${DEFAULT-VALUE}).")
  int valueSize;

  @Option(
      names = "--max-updates",
      defaultValue = "102400",
      description =
          "open: updates written per configuration in all (default ${DEFAULT-VALUE}: 100 MB of 1 KB"
              + " values).")
  long maxUpdates;

  @Option(
      names = "--steps",
      defaultValue = "4",
      description =
          "open: measure after max/10^(S-1), ..., max/10, max updates (default ${DEFAULT-VALUE}).")
  int steps;

  @Option(
      names = "--reps",
      defaultValue = "5",
      description = "open, clear: timed repetitions per measurement (default ${DEFAULT-VALUE}).")
  int reps;

  @Option(
      names = "--fill-threads",
      defaultValue = "8",
      description = "Threads writing the untimed fill (default ${DEFAULT-VALUE}).")
  int fillThreads;

  @Option(
      names = "--writers-list",
      defaultValue = "2,4,8,16",
      split = ",",
      description = "aborts: writer counts (default ${DEFAULT-VALUE}).")
  List<Integer> writers;

  @Option(
      names = "--clear-keys",
      defaultValue = "10000",
      description = "clear: keys in the map before each clear (default ${DEFAULT-VALUE}).")
  int clearKeys;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Seed of every key and value drawn (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--prefix", description = "Map name prefix (default: a fresh one per run).")
  String prefix;

  @Override
  public Integer call() throws Exception {
    if (!MODES.contains(mode)) {
      throw new IllegalArgumentException(
          "unknown mode '" + mode + "'; the modes are " + String.join(", ", MODES));
    }
    if (keys < 2
        || valueSize < Long.BYTES
        || maxUpdates < 1
        || steps < 1
        || reps < 1
        || fillThreads < 1
        || clearKeys < 0
        || duration <= 0
        || buckets.stream().anyMatch(b -> b < 1)
        || writers.stream().anyMatch(w -> w < 1)) {
      throw new IllegalArgumentException(
          "need --keys >= 2, --value-size >= 8, --max-updates, --steps, --reps and --fill-threads"
              + " >= 1, --clear-keys >= 0, positive --buckets and --writers-list, and a positive"
              + " --duration");
    }
    String names =
        prefix != null
            ? prefix
            : "collbench-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    CollectionWorkloads w =
        new CollectionWorkloads(
            new CollectionWorkloads.Setup(
                endpoint,
                logOptions(),
                names,
                parseAll(kinds, MapKind::parse),
                buckets,
                parseAll(dists, KeyGenerator.Distribution::parse),
                keys,
                valueSize,
                fillThreads,
                reps,
                seed,
                output));
    switch (mode) {
      case "open" -> w.openLatency(CollectionWorkloads.decades(maxUpdates, steps));
      case "aborts" -> w.aborts(writers, duration);
      case "clear" -> w.clear(clearKeys);
      default -> throw new IllegalStateException(mode);
    }
    return 0;
  }

  private static <T> List<T> parseAll(List<String> names, Function<String, T> parse) {
    List<T> out = new ArrayList<>();
    for (String n : names) {
      T t = parse.apply(n);
      if (!out.contains(t)) {
        out.add(t);
      }
    }
    return out;
  }
}
