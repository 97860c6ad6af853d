package io.vcorfu.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/**
 * Runs T closed-loop threads until a deadline. Each thread repeatedly calls its own {@link Op},
 * which records whatever latency it measures into the thread's recorder. A thread whose operation
 * throws stops; the run goes on with the others and reports the first failure. While it measures,
 * it prints one progress line per second on standard error ({@link ProgressTicker}: {@code progress
 * NAME SECONDS ops N total M}, N the operations completed that second).
 */
final class ClosedLoop {
  /** One operation of one thread; returns true when it completed one counted operation. */
  interface Op {
    boolean run(LatencyRecorder recorder) throws Exception;
  }

  /** What a run did. */
  record Result(
      long ops,
      double seconds,
      List<LatencyRecorder> recorders,
      long failedThreads,
      Throwable firstError) {
    double opsPerSecond() {
      return seconds <= 0 ? 0 : ops / seconds;
    }
  }

  private ClosedLoop() {}

  /**
   * Builds one operation per thread with {@code opForThread} (on the calling thread, before the
   * clock starts), runs them for {@code warmupSeconds} unrecorded and uncounted (their side effects
   * stay), then for {@code durationSeconds} measured.
   */
  static Result run(
      int threads,
      double warmupSeconds,
      double durationSeconds,
      String name,
      IntFunction<Op> opForThread)
      throws InterruptedException {
    List<Op> ops = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      ops.add(opForThread.apply(t));
    }
    AtomicLong done = new AtomicLong();
    LongAdder live = new LongAdder();
    AtomicLong failed = new AtomicLong();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    List<LatencyRecorder> recorders = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    long warmupEnd = System.nanoTime() + (long) (warmupSeconds * 1e9);
    long start = warmupEnd;
    long deadline = start + (long) (durationSeconds * 1e9);
    for (int t = 0; t < threads; t++) {
      LatencyRecorder rec = new LatencyRecorder();
      recorders.add(rec);
      Op op = ops.get(t);
      Thread w =
          new Thread(
              () -> {
                long mine = 0;
                try {
                  LatencyRecorder scratch = new LatencyRecorder();
                  while (System.nanoTime() < warmupEnd) {
                    op.run(scratch);
                  }
                  while (System.nanoTime() < deadline) {
                    if (op.run(rec)) {
                      mine++;
                      live.increment();
                    }
                  }
                } catch (Exception | Error e) {
                  failed.incrementAndGet();
                  firstError.compareAndSet(null, e);
                } finally {
                  done.addAndGet(mine);
                }
              },
              name + "-" + t);
      workers.add(w);
      w.start();
    }
    ProgressTicker progress = ProgressTicker.start(name, start, deadline - start, live::sum);
    try {
      for (Thread w : workers) {
        w.join();
      }
    } finally {
      progress.close();
    }
    double seconds = Math.max(0, (System.nanoTime() - start) / 1e9);
    return new Result(done.get(), seconds, recorders, failed.get(), firstError.get());
  }

  /** Times {@code body} into {@code recorder}. */
  static <T> T timed(LatencyRecorder recorder, java.util.function.Supplier<T> body) {
    long t0 = System.nanoTime();
    T result = body.get();
    recorder.record(System.nanoTime() - t0);
    return result;
  }
}
