package io.vcorfu.server.linearizability;

import io.vcorfu.runtime.VCorfuRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads calling {@code get} or {@code set} (50/50, at random) on registers opened as local views
 * of one runtime, each call recorded with {@code System.nanoTime()} before it begins and after it
 * returns. Set values are unique ({@code <process>.<thread>.<n>}). A call that throws is recorded
 * as pending: it may have taken effect. Bounded by a count of calls per thread and by time, and
 * stopped early when the caller asks ({@link #run(List, long, Progress)}). With a think time, each
 * thread waits a random time up to it before each call (uniform, from the thread's seeded random):
 * fewer calls a second for the same number of concurrent callers.
 *
 * @param process a name for the process, unique in the history
 * @param threads how many calling threads
 * @param keys how many registers
 * @param callsPerThread the most calls each thread makes
 * @param duration the longest time the threads call for
 * @param thinkMillis the longest a thread waits before a call; 0 for none
 */
public record RegisterWorkload(
    String process, int threads, int keys, int callsPerThread, Duration duration, int thinkMillis) {
  /** Threads that call back to back (no think time). */
  public RegisterWorkload(
      String process, int threads, int keys, int callsPerThread, Duration duration) {
    this(process, threads, keys, callsPerThread, duration, 0);
  }

  /** The name of register {@code k}. */
  public static String registerName(int k) {
    return "linz-register-" + k;
  }

  /**
   * Opens the registers on {@code rt} and reads each once (so a read lease covers their streams).
   */
  public List<Register> open(VCorfuRuntime rt) {
    List<Register> registers = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      Register r = rt.objects().open(registerName(k), Register.class);
      r.get();
      registers.add(r);
    }
    return registers;
  }

  /**
   * What a run has done so far, and a way to stop it early; shared with threads that watch it.
   * Thread-safe.
   */
  public static final class Progress {
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean stopRequested;

    /** Calls that returned. */
    public long completed() {
      return completed.get();
    }

    /** Calls that threw (recorded as pending). */
    public long failed() {
      return failed.get();
    }

    /** Asks the calling threads to stop after the call each is making. */
    public void stop() {
      stopRequested = true;
    }

    boolean stopped() {
      return stopRequested;
    }
  }

  /** Runs the calls on {@code registers} (from {@link #open}); returns every call made. */
  public List<Operation> run(List<Register> registers, long seed) throws Exception {
    return run(registers, seed, new Progress());
  }

  /**
   * Like {@link #run(List, long)}, counting the calls in {@code progress} as they end and stopping
   * early once {@link Progress#stop} is called.
   */
  public List<Operation> run(List<Register> registers, long seed, Progress progress)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Operation> history = Collections.synchronizedList(new ArrayList<>());
    long end = System.nanoTime() + duration.toNanos();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String caller = process + "." + t;
        Random random = new Random(seed + t);
        running.add(
            pool.submit(
                () -> {
                  for (int n = 0;
                      n < callsPerThread && System.nanoTime() - end < 0 && !progress.stopped();
                      n++) {
                    if (thinkMillis > 0) {
                      // The workload's pace (a client thinking between calls), not a wait for a
                      // condition.
                      Thread.sleep(random.nextInt(thinkMillis + 1));
                    }
                    int k = random.nextInt(keys);
                    String key = Integer.toString(k);
                    Register r = registers.get(k);
                    if (random.nextBoolean()) {
                      String v = caller + "." + n;
                      long start = System.nanoTime();
                      long returned;
                      try {
                        r.set(v);
                        returned = System.nanoTime();
                        progress.completed.incrementAndGet();
                      } catch (RuntimeException e) {
                        returned = Operation.PENDING;
                        progress.failed.incrementAndGet();
                      }
                      history.add(Operation.set(caller, key, v, start, returned));
                    } else {
                      long start = System.nanoTime();
                      try {
                        String v = r.get();
                        history.add(Operation.get(caller, key, v, start, System.nanoTime()));
                        progress.completed.incrementAndGet();
                      } catch (RuntimeException e) {
                        history.add(Operation.get(caller, key, null, start, Operation.PENDING));
                        progress.failed.incrementAndGet();
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get(duration.toMillis() + 120_000, TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    return new ArrayList<>(history);
  }
}
