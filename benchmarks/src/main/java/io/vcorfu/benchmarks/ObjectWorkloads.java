package io.vcorfu.benchmarks;

import io.vcorfu.benchmarks.ObjectsBench.Outcome;
import io.vcorfu.benchmarks.objects.BenchAccount;
import io.vcorfu.benchmarks.objects.BenchCounter;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The workloads behind {@code vcorfu bench objects}. Each method connects its own runtimes to the
 * endpoint, sets up fresh objects named after the prefix, runs a {@link ClosedLoop}, checks the
 * objects' state against what the run acknowledged, and closes its runtimes.
 */
final class ObjectWorkloads {
  /** Deposits made into every account before the read-only modes run. */
  private static final int POPULATE_ROUNDS = 4;

  /** Balance of every account before the tx mode runs. */
  private static final long INITIAL_BALANCE = 100;

  private final String endpoint;
  private final StreamLogOptions logOptions;
  private final String prefix;
  private final int objects;
  private final List<VCorfuRuntime> runtimes = new ArrayList<>();

  ObjectWorkloads(String endpoint, StreamLogOptions logOptions, String prefix, int objects) {
    this.endpoint = endpoint;
    this.logOptions = logOptions;
    this.prefix = prefix;
    this.objects = objects;
  }

  private VCorfuRuntime connect() {
    VCorfuRuntime rt = VCorfuRuntime.connect(endpoint, RuntimeOptions.defaults(), logOptions);
    runtimes.add(rt);
    return rt;
  }

  private void closeAll() {
    for (VCorfuRuntime rt : runtimes) {
      rt.close();
    }
    runtimes.clear();
  }

  private static double warmup(double duration) {
    return Math.min(2.0, duration * 0.2);
  }

  /** Accessor latency with no new updates, on one local or remote view shared by all threads. */
  Outcome accessor(int threads, double duration, boolean remote) throws InterruptedException {
    try {
      String name = prefix + "-counter";
      connect().objects().open(name, BenchCounter.class).add(1);
      VCorfuRuntime reader = connect();
      BenchCounter view =
          remote
              ? reader.objects().builder(name, BenchCounter.class).remote().open()
              : reader.objects().open(name, BenchCounter.class);
      long t0 = System.nanoTime();
      long first = view.get();
      String firstCall =
          String.format(
              java.util.Locale.ROOT,
              "first call after opening the view took %.1f ms and returned %d",
              (System.nanoTime() - t0) / 1e6,
              first);
      LongAdder calls = new LongAdder();
      LongAdder wrong = new LongAdder();
      ClosedLoop.Result r =
          ClosedLoop.run(
              threads,
              warmup(duration),
              duration,
              "accessor",
              t ->
                  rec -> {
                    long v = ClosedLoop.timed(rec, view::get);
                    calls.increment();
                    if (v != 1) {
                      wrong.increment();
                    }
                    return true;
                  });
      return new Outcome(
          r, 0, List.of(valueCheck(calls.sum(), wrong.sum(), "the counter's value 1"), firstCall));
    } finally {
      closeAll();
    }
  }

  /**
   * Accessor latency on a local view that is {@code behind} updates behind: before each measured
   * call another runtime appends that many updates, {@code appenders} at a time (not timed).
   */
  Outcome accessorBehind(double duration, int behind, int appenders) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(appenders);
    try {
      String name = prefix + "-counter";
      BenchCounter writer = connect().objects().open(name, BenchCounter.class);
      writer.add(1);
      BenchCounter reader = connect().objects().open(name, BenchCounter.class);
      AtomicLong expected = new AtomicLong(1);
      LongAdder calls = new LongAdder();
      LongAdder wrong = new LongAdder();
      List<Callable<Void>> batch = new ArrayList<>();
      for (int i = 0; i < behind; i++) {
        batch.add(
            () -> {
              writer.add(1);
              return null;
            });
      }
      ClosedLoop.Result r =
          ClosedLoop.run(
              1,
              warmup(duration),
              duration,
              "behind",
              t ->
                  rec -> {
                    for (Future<Void> f : pool.invokeAll(batch)) {
                      f.get();
                    }
                    long want = expected.addAndGet(behind);
                    long v = ClosedLoop.timed(rec, reader::get);
                    calls.increment();
                    if (v != want) {
                      wrong.increment();
                    }
                    return true;
                  });
      return new Outcome(
          r, 0, List.of(valueCheck(calls.sum(), wrong.sum(), "every update appended before it")));
    } finally {
      pool.shutdownNow();
      closeAll();
    }
  }

  /** Mutator throughput: T threads of one runtime add 1 to K counters in turn. */
  Outcome mutator(int threads, double duration) throws InterruptedException {
    try {
      VCorfuRuntime rt = connect();
      BenchCounter[] counters = new BenchCounter[objects];
      for (int k = 0; k < objects; k++) {
        counters[k] = rt.objects().open(prefix + "-counter-" + k, BenchCounter.class);
      }
      LongAdder acked = new LongAdder();
      ClosedLoop.Result r =
          ClosedLoop.run(
              threads,
              warmup(duration),
              duration,
              "mutator",
              t -> {
                long[] seq = {t};
                return rec -> {
                  BenchCounter c = counters[(int) (seq[0] % objects)];
                  seq[0] += threads;
                  long t0 = System.nanoTime();
                  c.add(1);
                  rec.record(System.nanoTime() - t0);
                  acked.increment();
                  return true;
                };
              });
      long sum = 0;
      VCorfuRuntime fresh = connect();
      for (int k = 0; k < objects; k++) {
        sum += fresh.objects().open(prefix + "-counter-" + k, BenchCounter.class).get();
      }
      return new Outcome(
          r, 0, List.of(sumCheck("counters", sum, acked.sum(), r.firstError() == null)));
    } finally {
      closeAll();
    }
  }

  /**
   * Transaction throughput against contention: T writers, each its own runtime. A transaction reads
   * two distinct accounts of K and deposits 1 into the first. An abort is counted and the same
   * transaction retried at once (a fresh snapshot); a commit counts as one operation, its latency
   * measured from its first attempt.
   */
  Outcome transactions(int threads, double duration) throws InterruptedException {
    try {
      VCorfuRuntime setup = connect();
      for (int k = 0; k < objects; k++) {
        setup.objects().open(account(k), BenchAccount.class).deposit(INITIAL_BALANCE);
      }
      LongAdder commits = new LongAdder();
      LongAdder aborts = new LongAdder();
      Map<TransactionAbortedException.Reason, LongAdder> reasons = new ConcurrentHashMap<>();
      List<VCorfuRuntime> writers = new ArrayList<>();
      List<BenchAccount[]> views = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        VCorfuRuntime rt = connect();
        writers.add(rt);
        views.add(openAccounts(rt, false));
      }
      ClosedLoop.Result r =
          ClosedLoop.run(
              threads,
              0,
              duration,
              "tx",
              t -> {
                VCorfuRuntime rt = writers.get(t);
                BenchAccount[] acct = views.get(t);
                SplittableRandom rnd = new SplittableRandom(1000L + t);
                int[] pending = {-1, -1};
                long[] firstAttempt = {0};
                return rec -> {
                  if (pending[0] < 0) {
                    pending[0] = rnd.nextInt(objects);
                    pending[1] = (pending[0] + 1 + rnd.nextInt(objects - 1)) % objects;
                    firstAttempt[0] = System.nanoTime();
                  }
                  rt.TXBegin();
                  try {
                    long a = acct[pending[0]].balance();
                    long b = acct[pending[1]].balance();
                    if (a < 0 || b < 0) {
                      throw new IllegalStateException("an account went negative: " + a + ", " + b);
                    }
                    acct[pending[0]].deposit(1);
                    rt.TXEnd();
                  } catch (TransactionAbortedException e) {
                    aborts.increment();
                    reasons.computeIfAbsent(e.reason(), x -> new LongAdder()).increment();
                    return false;
                  } finally {
                    if (rt.inTransaction()) {
                      rt.TXAbort();
                    }
                  }
                  rec.record(System.nanoTime() - firstAttempt[0]);
                  commits.increment();
                  pending[0] = -1;
                  return true;
                };
              });
      long sum = 0;
      for (BenchAccount a : openAccounts(connect(), false)) {
        sum += a.balance();
      }
      Map<String, Long> byReason = new TreeMap<>();
      reasons.forEach((k, v) -> byReason.put(k.name(), v.sum()));
      return new Outcome(
          r,
          aborts.sum(),
          List.of(
              sumCheck(
                  "balances",
                  sum,
                  INITIAL_BALANCE * objects + commits.sum(),
                  r.firstError() == null),
              "aborts by reason " + byReason));
    } finally {
      closeAll();
    }
  }

  /**
   * Read-only transactions: T threads, each its own runtime with K local or remote views. A
   * transaction reads {@code reads} random accounts, either in TXBegin/TXEnd at the tail or, with
   * {@code randomSnapshot}, through snapshot views at one random address of the populated log.
   * Every balance read is compared with the deposits the populating runtime committed at or below
   * the address read.
   */
  Outcome readOnly(int threads, double duration, int reads, boolean remote, boolean randomSnapshot)
      throws InterruptedException {
    try {
      VCorfuRuntime setup = connect();
      BenchAccount[] populate = openAccounts(setup, false);
      long[][] depositAt = new long[objects][POPULATE_ROUNDS];
      for (int round = 0; round < POPULATE_ROUNDS; round++) {
        for (int k = 0; k < objects; k++) {
          setup.TXBegin();
          populate[k].deposit(1);
          depositAt[k][round] = setup.TXEnd();
        }
      }
      long lo = depositAt[0][0] - 1;
      long hi = depositAt[objects - 1][POPULATE_ROUNDS - 1];
      List<VCorfuRuntime> readers = new ArrayList<>();
      List<BenchAccount[]> views = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        VCorfuRuntime rt = connect();
        readers.add(rt);
        BenchAccount[] v = openAccounts(rt, remote);
        for (BenchAccount a : v) {
          a.balance();
        }
        views.add(v);
      }
      LongAdder readsDone = new LongAdder();
      LongAdder wrong = new LongAdder();
      LongAdder aborts = new LongAdder();
      ClosedLoop.Result r =
          ClosedLoop.run(
              threads,
              warmup(duration),
              duration,
              "ro-tx",
              t -> {
                VCorfuRuntime rt = readers.get(t);
                BenchAccount[] acct = views.get(t);
                SplittableRandom rnd = new SplittableRandom(2000L + t);
                return rec -> {
                  long t0 = System.nanoTime();
                  if (randomSnapshot) {
                    long at = lo + rnd.nextLong(hi - lo + 1);
                    for (int i = 0; i < reads; i++) {
                      int k = rnd.nextInt(objects);
                      var b = rt.objects().builder(account(k), BenchAccount.class).asOf(at);
                      long v = (remote ? b.remote() : b).open().balance();
                      expect(v, depositsAtOrBelow(depositAt[k], at), readsDone, wrong);
                    }
                  } else {
                    rt.TXBegin();
                    try {
                      for (int i = 0; i < reads; i++) {
                        expect(
                            acct[rnd.nextInt(objects)].balance(),
                            POPULATE_ROUNDS,
                            readsDone,
                            wrong);
                      }
                      rt.TXEnd();
                    } catch (TransactionAbortedException e) {
                      aborts.increment();
                      return false;
                    } finally {
                      if (rt.inTransaction()) {
                        rt.TXAbort();
                      }
                    }
                  }
                  rec.record(System.nanoTime() - t0);
                  return true;
                };
              });
      return new Outcome(
          r,
          aborts.sum(),
          List.of(
              valueCheck(
                  readsDone.sum(),
                  wrong.sum(),
                  "the deposits committed at or below the address read")));
    } finally {
      closeAll();
    }
  }

  private String account(int k) {
    return prefix + "-account-" + k;
  }

  private BenchAccount[] openAccounts(VCorfuRuntime rt, boolean remote) {
    BenchAccount[] a = new BenchAccount[objects];
    for (int k = 0; k < objects; k++) {
      a[k] =
          remote
              ? rt.objects().builder(account(k), BenchAccount.class).remote().open()
              : rt.objects().open(account(k), BenchAccount.class);
    }
    return a;
  }

  private static long depositsAtOrBelow(long[] sortedAddresses, long at) {
    int i = Arrays.binarySearch(sortedAddresses, at);
    return i >= 0 ? i + 1 : -i - 1;
  }

  private static void expect(long got, long want, LongAdder done, LongAdder wrong) {
    done.increment();
    if (got != want) {
      wrong.increment();
    }
  }

  private static String valueCheck(long calls, long wrong, String what) {
    return wrong == 0
        ? "ok: all " + calls + " reads returned " + what
        : "FAILED: " + wrong + " of " + calls + " reads did not return " + what;
  }

  private static String sumCheck(String what, long got, long want, boolean complete) {
    if (!complete) {
      return "skipped: a thread failed, so the sum of "
          + what
          + " cannot be predicted (got "
          + got
          + ")";
    }
    return got == want
        ? "ok: sum of " + what + " " + got + " matches the acknowledged updates"
        : "FAILED: sum of " + what + " is " + got + ", the acknowledged updates say " + want;
  }
}
