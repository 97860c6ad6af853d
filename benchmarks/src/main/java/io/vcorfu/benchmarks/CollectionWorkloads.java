package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The workloads behind {@code vcorfu bench collections}. Every configuration (map kind, bucket
 * count, key distribution ...) uses fresh map names under the run's prefix, so no configuration
 * plays back another's updates. Each finished measurement is printed through {@code out} at once (a
 * long run shows progress), as a text line and a JSON object of the same fields ({@code "mode":
 * "collections"}, {@code "workload"}: open, aborts or clear). A configuration that fails prints
 * {@code could not run} (in JSON its parameters and {@code "error"}) and the others go on.
 */
final class CollectionWorkloads {
  /** Everything a run is parameterized by. */
  record Setup(
      String endpoint,
      StreamLogOptions logOptions,
      String prefix,
      List<MapKind> kinds,
      List<Integer> buckets,
      List<KeyGenerator.Distribution> dists,
      long keys,
      int valueSize,
      int fillThreads,
      int reps,
      long seed,
      BenchOutput out) {}

  private final Setup s;

  CollectionWorkloads(Setup setup) {
    this.s = setup;
  }

  /** A runtime of its own on the cluster of the run. */
  private VCorfuRuntime connect() {
    return VCorfuRuntime.connect(s.endpoint(), RuntimeOptions.defaults(), s.logOptions());
  }

  /** The bucket counts a kind runs with: the chosen ones if it is bucketed, else just 1. */
  private List<Integer> bucketsOf(MapKind kind) {
    return kind.bucketed() ? s.buckets() : List.of(1);
  }

  private String name(String mode, MapKind kind, int buckets, String variant) {
    return s.prefix() + "-" + mode + "-" + kind.label() + "-b" + buckets + "-" + variant;
  }

  /**
   * Figure 16 (top). For each configuration, writes values with {@code fastPut} up to each of
   * {@code steps} (cumulative update counts, ascending), and at each step times, {@code reps}
   * times, a fresh runtime opening a local view of the map and reading one key drawn from the
   * configuration's distribution (connecting the runtime is not timed; opening and the first read
   * are). Prints {@code collections mode=open ... open_read_ms p50 X max Y wrong=W}.
   */
  void openLatency(List<Long> steps) throws InterruptedException {
    try (MapFill fill = new MapFill(s.fillThreads(), s.valueSize())) {
      for (MapKind kind : s.kinds()) {
        for (int buckets : bucketsOf(kind)) {
          for (KeyGenerator.Distribution dist : s.dists()) {
            String head =
                String.format(
                    Locale.ROOT,
                    "collections mode=open kind=%s buckets=%d dist=%s",
                    kind.label(),
                    buckets,
                    dist.label());
            ObjectNode params = params("open", kind, buckets).put("dist", dist.label());
            try {
              openOne(kind, buckets, dist, steps, fill, head, params);
            } catch (RuntimeException e) {
              couldNotRun(head, params, e);
            }
          }
        }
      }
    }
  }

  private void openOne(
      MapKind kind,
      int buckets,
      KeyGenerator.Distribution dist,
      List<Long> steps,
      MapFill fill,
      String head,
      ObjectNode params)
      throws InterruptedException {
    String name = name("open", kind, buckets, dist.label());
    Set<Long> written = ConcurrentHashMap.newKeySet();
    KeyGenerator readKeys = dist.generator(s.keys(), s.seed() ^ 0x5eedL);
    try (VCorfuRuntime writer = connect()) {
      MapKind.Opened w = kind.open(writer, name, buckets, false);
      long done = 0;
      for (long step : steps) {
        fill.fill(w, step - done, dist, s.keys(), s.seed() + 1000L * done, written);
        done = step;
        long[] nanos = new long[s.reps()];
        int wrong = 0;
        for (int r = 0; r < s.reps(); r++) {
          long k = readKeys.next();
          try (VCorfuRuntime fresh = connect()) {
            long t0 = System.nanoTime();
            byte[] got = kind.open(fresh, name, buckets, false).map().get(MapFill.key(k));
            nanos[r] = System.nanoTime() - t0;
            if (!fill.readIsRight(k, got, written)) {
              wrong++;
            }
          }
        }
        double mb = done * (double) s.valueSize() / (1 << 20);
        ObjectNode result =
            params.deepCopy().put("updates", done).put("mb", mb).put("reps", s.reps());
        result.set("open_read", p50MaxJson(nanos));
        result.put("wrong", wrong);
        s.out()
            .print(
                result,
                String.format(
                    Locale.ROOT,
                    "%s updates=%d mb=%.1f reps=%d open_read_ms %s wrong=%d",
                    head,
                    done,
                    mb,
                    s.reps(),
                    p50Max(nanos),
                    wrong));
      }
    }
  }

  /**
   * Figure 16 (bottom). For each configuration and writer count, {@code writers} threads, each with
   * its own runtime (its own client, as in the paper) and its own local view, run transactions for
   * {@code duration} seconds: read two keys, {@code fastPut} a third, all drawn from the
   * distribution; an aborted transaction is counted and the thread goes on with new keys.
   * Afterwards a fresh runtime checks that the map's keys are exactly those written by committed
   * transactions. Prints {@code collections mode=aborts ... committed=C aborted=A abort_rate=R%}.
   */
  void aborts(List<Integer> writerCounts, double duration) throws InterruptedException {
    for (MapKind kind : s.kinds()) {
      for (int buckets : bucketsOf(kind)) {
        for (KeyGenerator.Distribution dist : s.dists()) {
          for (int writers : writerCounts) {
            String head =
                String.format(
                    Locale.ROOT,
                    "collections mode=aborts kind=%s buckets=%d dist=%s writers=%d",
                    kind.label(),
                    buckets,
                    dist.label(),
                    writers);
            ObjectNode params =
                params("aborts", kind, buckets).put("dist", dist.label()).put("writers", writers);
            try {
              abortsOne(kind, buckets, dist, writers, duration, head, params);
            } catch (RuntimeException e) {
              couldNotRun(head, params, e);
            }
          }
        }
      }
    }
  }

  private void abortsOne(
      MapKind kind,
      int buckets,
      KeyGenerator.Distribution dist,
      int writers,
      double duration,
      String head,
      ObjectNode params)
      throws InterruptedException {
    String name = name("aborts", kind, buckets, dist.label() + "-w" + writers);
    List<VCorfuRuntime> runtimes = new ArrayList<>();
    try (MapFill values = new MapFill(1, s.valueSize())) {
      List<MapKind.Opened> views = new ArrayList<>();
      for (int t = 0; t < writers; t++) {
        VCorfuRuntime rt = connect();
        runtimes.add(rt);
        MapKind.Opened v = kind.open(rt, name, buckets, false);
        v.map().size(); // opens every bucket's view before the clock starts
        views.add(v);
      }
      LongAdder aborted = new LongAdder();
      Set<Long> committedKeys = ConcurrentHashMap.newKeySet();
      ClosedLoop.Result r =
          ClosedLoop.run(
              writers,
              0,
              duration,
              "tx",
              t -> {
                VCorfuRuntime rt = runtimes.get(t);
                MapKind.Opened v = views.get(t);
                KeyGenerator gen = dist.generator(s.keys(), s.seed() + 31L * t);
                long[] salt = {s.seed() * 7919 + t};
                return rec -> {
                  long a = gen.next();
                  long b = gen.next();
                  long c = gen.next();
                  byte[] value = values.value(c, salt[0]++);
                  long t0 = System.nanoTime();
                  rt.TXBegin();
                  try {
                    v.map().get(MapFill.key(a));
                    v.map().get(MapFill.key(b));
                    v.fastPut().put(MapFill.key(c), value);
                    rt.TXEnd();
                  } catch (TransactionAbortedException e) {
                    aborted.increment();
                    return false;
                  } finally {
                    if (rt.inTransaction()) {
                      rt.TXAbort();
                    }
                  }
                  rec.record(System.nanoTime() - t0);
                  committedKeys.add(c);
                  return true;
                };
              });
      String check;
      try (VCorfuRuntime fresh = connect()) {
        Set<String> want = new HashSet<>();
        committedKeys.forEach(k -> want.add(MapFill.key(k)));
        Set<String> got = new HashSet<>(kind.open(fresh, name, buckets, false).map().keySet());
        check = r.firstError() != null ? "skipped" : got.equals(want) ? "ok" : "FAILED";
      }
      long attempts = r.ops() + aborted.sum();
      double abortRate = attempts == 0 ? 0.0 : 100.0 * aborted.sum() / attempts;
      ObjectNode result =
          params
              .deepCopy()
              .put("keys", s.keys())
              .put("seconds", r.seconds())
              .put("ops", r.ops())
              .put("aborted", aborted.sum())
              .put("abort_rate_percent", abortRate)
              .put("ops_per_second", r.opsPerSecond())
              .put("keys_check", check);
      result.set("latency", LatencyRecorder.json(r.recorders()));
      BenchOutput.putStoppedEarly(
          result, r.failedThreads(), r.firstError() == null ? null : r.firstError().toString());
      s.out()
          .print(
              result,
              String.format(
                  Locale.ROOT,
                  "%s keys=%d seconds=%.1f committed=%d aborted=%d abort_rate=%.2f%%"
                      + " commits_per_s=%.0f keys_check=%s %s",
                  head,
                  s.keys(),
                  r.seconds(),
                  r.ops(),
                  aborted.sum(),
                  abortRate,
                  r.opsPerSecond(),
                  check,
                  LatencyRecorder.summary(r.recorders())),
              r.firstError() == null
                  ? null
                  : "stopped early "
                      + head.substring("collections ".length())
                      + ": "
                      + r.failedThreads()
                      + " thread(s) failed, first: "
                      + r.firstError());
    } finally {
      for (VCorfuRuntime rt : runtimes) {
        rt.close();
      }
    }
  }

  /**
   * Figure 17. For each configuration and view (local, remote): fills the map with {@code prefill}
   * distinct keys, then, {@code reps} times, a fresh runtime opens the view and calls {@code
   * clear()} then {@code size()} (the map is filled again, untimed, before every repetition after
   * the first). The open, the clear and the size are timed. Prints {@code collections mode=clear
   * ... clear_ms p50 X max Y size_ms ... total_ms ... wrong=W} where total includes opening the
   * view and wrong counts sizes that were not 0.
   */
  void clear(int prefill) throws InterruptedException {
    try (MapFill fill = new MapFill(s.fillThreads(), s.valueSize())) {
      for (MapKind kind : s.kinds()) {
        for (int buckets : bucketsOf(kind)) {
          for (boolean remote : new boolean[] {false, true}) {
            String view = remote ? "remote" : "local";
            String head =
                String.format(
                    Locale.ROOT,
                    "collections mode=clear kind=%s buckets=%d view=%s",
                    kind.label(),
                    buckets,
                    view);
            ObjectNode params = params("clear", kind, buckets).put("view", view);
            try {
              clearOne(kind, buckets, remote, prefill, fill, head, params);
            } catch (RuntimeException e) {
              couldNotRun(head, params, e);
            }
          }
        }
      }
    }
  }

  private void clearOne(
      MapKind kind,
      int buckets,
      boolean remote,
      int prefill,
      MapFill fill,
      String head,
      ObjectNode params) {
    String name = name("clear", kind, buckets, remote ? "remote" : "local");
    long[] open = new long[s.reps()];
    long[] clear = new long[s.reps()];
    long[] size = new long[s.reps()];
    long[] total = new long[s.reps()];
    int wrong = 0;
    try (VCorfuRuntime writer = connect()) {
      MapKind.Opened w = kind.open(writer, name, buckets, false);
      for (int r = 0; r < s.reps(); r++) {
        for (long k = 0; k < prefill; k++) {
          w.fastPut().put(MapFill.key(k), fill.value(k, s.seed() + k));
        }
        try (VCorfuRuntime fresh = connect()) {
          long t0 = System.nanoTime();
          MapKind.Opened v = kind.open(fresh, name, buckets, remote);
          long t1 = System.nanoTime();
          v.map().clear();
          long t2 = System.nanoTime();
          int n = v.map().size();
          long t3 = System.nanoTime();
          open[r] = t1 - t0;
          clear[r] = t2 - t1;
          size[r] = t3 - t2;
          total[r] = t3 - t0;
          if (n != 0) {
            wrong++;
          }
        }
      }
    }
    ObjectNode result = params.deepCopy().put("keys", prefill).put("reps", s.reps());
    result.set("open", p50MaxJson(open));
    result.set("clear", p50MaxJson(clear));
    result.set("size", p50MaxJson(size));
    result.set("total", p50MaxJson(total));
    result.put("wrong", wrong);
    s.out()
        .print(
            result,
            String.format(
                Locale.ROOT,
                "%s keys=%d reps=%d open_ms %s clear_ms %s size_ms %s total_ms %s wrong=%d",
                head,
                prefill,
                s.reps(),
                p50Max(open),
                p50Max(clear),
                p50Max(size),
                p50Max(total),
                wrong));
  }

  /** {@code "p50 X max Y"} in milliseconds, the median being the lower middle sample. */
  static String p50Max(long[] nanos) {
    double[] ms = p50AndMaxMs(nanos);
    if (ms == null) {
      return "p50 - max -";
    }
    return String.format(Locale.ROOT, "p50 %.3f max %.3f", ms[0], ms[1]);
  }

  /** The same as {@code {"p50_ms": X, "max_ms": Y}}, both null without samples. */
  static ObjectNode p50MaxJson(long[] nanos) {
    double[] ms = p50AndMaxMs(nanos);
    ObjectNode o = BenchOutput.JSON.createObjectNode();
    if (ms == null) {
      return o.putNull("p50_ms").putNull("max_ms");
    }
    return o.put("p50_ms", ms[0]).put("max_ms", ms[1]);
  }

  /** The lower median and the maximum of {@code nanos} in milliseconds, or null if empty. */
  private static double[] p50AndMaxMs(long[] nanos) {
    if (nanos.length == 0) {
      return null;
    }
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return new double[] {sorted[(sorted.length - 1) / 2] / 1e6, sorted[sorted.length - 1] / 1e6};
  }

  /** The parameters every result of {@code mode} starts with. */
  private static ObjectNode params(String mode, MapKind kind, int buckets) {
    return BenchOutput.result("collections")
        .put("workload", mode)
        .put("kind", kind.label())
        .put("buckets", buckets);
  }

  /** Prints that the configuration {@code head} (JSON: {@code params}) failed with {@code e}. */
  private void couldNotRun(String head, ObjectNode params, RuntimeException e) {
    s.out().print(params.deepCopy().put("error", e.toString()), head + ": could not run: " + e);
  }

  /**
   * Cumulative update counts for the open mode: {@code count} decades ending at {@code max} ({@code
   * max / 10^(count-1)}, ..., {@code max / 10}, {@code max}), ascending, without zeros or repeats.
   */
  static List<Long> decades(long max, int count) {
    if (max < 1 || count < 1) {
      throw new IllegalArgumentException(
          "need at least one update and one step, not max " + max + " and " + count + " steps");
    }
    List<Long> steps = new ArrayList<>();
    long divisor = 1;
    for (int i = 1; i < count && divisor <= max / 10; i++) {
      divisor *= 10;
    }
    for (; divisor >= 1; divisor /= 10) {
      long step = max / divisor;
      if (step >= 1 && (steps.isEmpty() || steps.get(steps.size() - 1) < step)) {
        steps.add(step);
      }
    }
    return steps;
  }
}
