package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vcorfu bench objects MODE}: the object runtime's costs, one mode per run. Every mode opens
 * fresh objects (names start with a per-run prefix), so earlier runs leave no history to play back.
 * Each run prints one line {@code objects mode=M threads=T ... ops_per_s=X aborts=A abort_rate=R
 * latency_ms p50 .. p99 .. p999 .. max ..}, then {@code check ...} lines that compare the objects'
 * final state with what the run acknowledged. A failure stops the affected thread; the run still
 * prints its line and the first failure, and exits 0. A mode that cannot run at all prints {@code
 * objects mode=M: could not run: WHY} (in JSON {@code "error"}) and exits 1. With {@code --output
 * json} the result is one JSON object: {@code workload} (the mode, with {@code -snap} for
 * --random-snapshot), {@code threads}, {@code objects}, {@code behind}, {@code reads}, {@code ops},
 * {@code seconds}, {@code ops_per_second}, {@code aborts}, {@code abort_rate_percent}, {@code
 * latency}, {@code checks} (the check lines' text) and {@code stopped_early}.
 */
@Command(
    name = "objects",
    mixinStandardHelpOptions = true,
    description = {
      "Object runtime benchmarks: accessors, mutators, transactions.",
      "Modes:",
      "accessor-local: accessor latency on a local view with no new updates",
      "  (T threads share one view).",
      "accessor-remote: accessor latency on a remote view (an RPC to the node",
      "  hosting the object).",
      "accessor-behind: accessor latency on a local view --behind N updates",
      "  behind: before each timed call a second runtime appends N updates",
      "  (untimed); one reader thread.",
      "mutator: mutator throughput and latency; T threads add to K counters.",
      "tx: T writers, each its own runtime; a transaction reads 2 of K",
      "  accounts and deposits into 1 of them; commits/s and abort rate (each",
      "  abort counted, then the transaction retried at once).",
      "ro-tx-local, ro-tx-remote: read-only transactions reading --reads R of",
      "  K accounts through local or remote views; with --random-snapshot",
      "  through snapshot views (asOf) at a random address of the populated",
      "  log instead of TXBegin/TXEnd at the tail.",
      ""
    })
final class ObjectsBench extends ClusterBench {
  static final List<String> MODES =
      List.of(
          "accessor-local",
          "accessor-remote",
          "accessor-behind",
          "mutator",
          "tx",
          "ro-tx-local",
          "ro-tx-remote");

  @Parameters(
      index = "0",
      paramLabel = "MODE",
      completionCandidates = ModeNames.class,
      description = "One of: ${COMPLETION-CANDIDATES}.")
  String mode;

  @Option(
      names = "--objects",
      defaultValue = "16",
      description = "Objects K for mutator, tx and ro-tx (default ${DEFAULT-VALUE}).")
  int objects;

  @Option(
      names = "--behind",
      defaultValue = "10",
      description = "Updates appended before each accessor-behind call (default ${DEFAULT-VALUE}).")
  int behind;

  @Option(
      names = "--appenders",
      defaultValue = "8",
      description = "Parallel appends the accessor-behind writer uses (default ${DEFAULT-VALUE}).")
  int appenders;

  @Option(
      names = "--reads",
      defaultValue = "3",
      description = "Objects read per read-only transaction (default ${DEFAULT-VALUE}).")
  int reads;

  @Option(
      names = "--random-snapshot",
      description = "ro-tx modes: read at a random past address through snapshot views.")
  boolean randomSnapshot;

  @Option(names = "--prefix", description = "Object name prefix (default: a fresh one per run).")
  String prefix;

  /** Lists the modes for picocli's help. */
  static final class ModeNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return MODES.iterator();
    }
  }

  /** What a mode measured: the loop's result, aborts seen, and sanity checks to print. */
  record Outcome(ClosedLoop.Result result, long aborts, List<String> checks) {}

  @Override
  public Integer call() throws Exception {
    if (!MODES.contains(mode)) {
      throw new IllegalArgumentException(
          "unknown mode '" + mode + "'; the modes are " + String.join(", ", MODES));
    }
    if (threads < 1 || objects < 2 || behind < 0 || reads < 1 || appenders < 1 || duration <= 0) {
      throw new IllegalArgumentException(
          "need --threads >= 1, --objects >= 2, --behind >= 0, --reads >= 1, "
              + "--appenders >= 1 and a positive --duration");
    }
    String names =
        prefix != null
            ? prefix
            : "objbench-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    ObjectWorkloads w = new ObjectWorkloads(endpoint, logOptions(), names, objects);
    Outcome o;
    try {
      o =
          switch (mode) {
            case "accessor-local" -> w.accessor(threads, duration, false);
            case "accessor-remote" -> w.accessor(threads, duration, true);
            case "accessor-behind" -> w.accessorBehind(duration, behind, appenders);
            case "mutator" -> w.mutator(threads, duration);
            case "tx" -> w.transactions(threads, duration);
            case "ro-tx-local" -> w.readOnly(threads, duration, reads, false, randomSnapshot);
            case "ro-tx-remote" -> w.readOnly(threads, duration, reads, true, randomSnapshot);
            default -> throw new IllegalStateException(mode);
          };
    } catch (RuntimeException e) {
      output.print(
          BenchOutput.error("objects", e.toString()).put("workload", mode),
          "objects mode=" + mode + ": could not run: " + e);
      return io.vcorfu.server.cli.VcorfuCli.FAILED;
    }
    print(o);
    return 0;
  }

  private void print(Outcome o) {
    ClosedLoop.Result r = o.result();
    String variant = mode.startsWith("ro-tx") && randomSnapshot ? mode + "-snap" : mode;
    int shownThreads = mode.equals("accessor-behind") ? 1 : threads;
    long attempts = r.ops() + o.aborts();
    int shownObjects = mode.startsWith("accessor") ? 1 : objects;
    int shownBehind = mode.equals("accessor-behind") ? behind : 0;
    int shownReads = mode.startsWith("ro-tx") ? reads : mode.equals("tx") ? 2 : 0;
    double abortRate = attempts == 0 ? 0.0 : 100.0 * o.aborts() / attempts;
    ObjectNode result =
        BenchOutput.result("objects")
            .put("workload", variant)
            .put("threads", shownThreads)
            .put("objects", shownObjects)
            .put("behind", shownBehind)
            .put("reads", shownReads)
            .put("ops", r.ops())
            .put("seconds", r.seconds())
            .put("ops_per_second", r.opsPerSecond())
            .put("aborts", o.aborts())
            .put("abort_rate_percent", abortRate);
    result.set("latency", LatencyRecorder.json(r.recorders()));
    ArrayNode checks = result.putArray("checks");
    o.checks().forEach(checks::add);
    BenchOutput.putStoppedEarly(
        result, r.failedThreads(), r.firstError() == null ? null : r.firstError().toString());
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "objects mode=%s threads=%d objects=%d behind=%d reads=%d ops=%d seconds=%.1f"
                + " ops_per_s=%.0f aborts=%d abort_rate=%.2f%% %s",
            variant,
            shownThreads,
            shownObjects,
            shownBehind,
            shownReads,
            r.ops(),
            r.seconds(),
            r.opsPerSecond(),
            o.aborts(),
            abortRate,
            LatencyRecorder.summary(r.recorders())));
    for (String c : o.checks()) {
      lines.add("check " + variant + ": " + c);
    }
    if (r.firstError() != null) {
      lines.add(
          "stopped early "
              + variant
              + ": "
              + r.failedThreads()
              + " thread(s) failed, first: "
              + r.firstError());
    }
    output.print(result, lines.toArray(String[]::new));
  }
}
