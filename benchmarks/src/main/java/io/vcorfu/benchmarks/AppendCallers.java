package io.vcorfu.benchmarks;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.protocol.StreamId;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The closed-loop callers of {@code bench append} ({@link AppendBench}): caller {@code t} of {@code
 * --threads} appends to stream {@code t mod K}, then {@code t + threads mod K}, ..., on client
 * {@code t mod --conns}, one append in flight, until the load windows end; on one thread each
 * ({@code --callers threads}) or from the completions of their appends ({@code --callers loop}).
 */
final class AppendCallers {
  private final AppendBench bench;
  private final LoadWindows windows;
  private final List<ClusterStreamLog> logs;
  private final String runId;
  private final BufferedWriter acks;
  private final AtomicLong acked;
  private final AtomicLong errors;
  private final AtomicLong stopped;
  private final AtomicReference<Throwable> firstError;
  private final AtomicReference<Throwable> firstStop;
  // What every append shares, made once: the value's letters and each stream's id (a name's id is
  // a digest of it), so that the bench's own work per append stays small beside the client's.
  private final byte[] valueTemplate;
  private final List<List<StreamId>> streamIds;

  AppendCallers(
      AppendBench bench,
      LoadWindows windows,
      List<ClusterStreamLog> logs,
      String runId,
      BufferedWriter acks,
      AtomicLong acked,
      AtomicLong errors,
      AtomicLong stopped,
      AtomicReference<Throwable> firstError,
      AtomicReference<Throwable> firstStop) {
    this.bench = bench;
    this.windows = windows;
    this.logs = logs;
    this.runId = runId;
    this.acks = acks;
    this.acked = acked;
    this.errors = errors;
    this.stopped = stopped;
    this.firstError = firstError;
    this.firstStop = firstStop;
    this.valueTemplate = AppendBench.valueTemplate(bench.size);
    this.streamIds = new ArrayList<>(bench.streams);
    for (int k = 0; k < bench.streams; k++) {
      streamIds.add(List.of(StreamId.of(bench.prefix + "-" + k)));
    }
  }

  /**
   * One thread per caller, each blocked on its append's acknowledgement and, with {@code --rate},
   * waiting for its turn before the next.
   */
  void runOnThreads() throws InterruptedException {
    List<Thread> workers = new ArrayList<>();
    // With --rate, caller t sends at start + t * gap / threads + k * gap, gap = threads / rate:
    // the callers' turns interleave evenly; one more than a gap behind starts again from now.
    long gap = bench.rate > 0 ? (long) (bench.threads * 1e9 / bench.rate) : 0;
    long start = System.nanoTime();
    for (int t = 0; t < bench.threads; t++) {
      Caller c = new Caller(t);
      long first = start + gap * t / bench.threads;
      Thread w =
          new Thread(
              () -> {
                long turn = first;
                while (windows.running()) {
                  if (gap > 0) {
                    long now = System.nanoTime();
                    if (turn - now > 0) {
                      java.util.concurrent.locks.LockSupport.parkNanos(turn - now);
                      continue; // the windows may have ended meanwhile
                    }
                    turn = now - turn > gap ? now + gap : turn + gap;
                  }
                  if (!c.recordJoined(c.send())) {
                    return;
                  }
                }
              },
              "append-" + t);
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join();
    }
  }

  /**
   * Each caller's next append is sent from the thread that completed its last one (a client I/O
   * thread); the calling thread only waits for every caller to finish.
   */
  void runAsLoop() throws InterruptedException {
    CountDownLatch done = new CountDownLatch(bench.threads);
    for (int t = 0; t < bench.threads; t++) {
      new Caller(t).next(done);
    }
    done.await();
  }

  /** One caller: its stream turn, its values and its slot in the load windows. */
  private final class Caller {
    private final int thread;
    private final ClusterStreamLog log;
    private final LoadWindows.Slot slot;
    private long seq;
    private List<StreamId> stream;
    private byte[] value;
    private long started;

    Caller(int thread) {
      this.thread = thread;
      this.log = logs.get(thread % bench.conns);
      this.slot = windows.newSlot();
    }

    CompletableFuture<AppendResult> send() {
      int k = (int) ((seq * bench.threads + thread) % bench.streams);
      stream = streamIds.get(k);
      value = AppendBench.value(valueTemplate, runId, thread, seq++);
      started = System.nanoTime();
      return log.append(stream, value);
    }

    /**
     * Sends appends until the windows end or one is refused; one that completes at once is recorded
     * here in a loop rather than from its own callback, so the stack does not grow.
     */
    void next(CountDownLatch done) {
      while (windows.running()) {
        CompletableFuture<AppendResult> f = send();
        if (!f.isDone()) {
          f.whenComplete(
              (r, error) -> {
                if (record(r, error)) {
                  next(done);
                } else {
                  done.countDown();
                }
              });
          return;
        }
        if (!recordJoined(f)) {
          done.countDown();
          return;
        }
      }
      done.countDown();
    }

    /** {@link #record}s the outcome of {@code f}, waiting for it if it is not done. */
    boolean recordJoined(CompletableFuture<AppendResult> f) {
      AppendResult r = null;
      Throwable error = null;
      try {
        r = f.join();
      } catch (RuntimeException e) {
        error = e;
      }
      return record(r, error);
    }

    /**
     * Records the outcome of the append just sent; false when the caller stops (an error no layout
     * change cures).
     */
    boolean record(AppendResult r, Throwable error) {
      if (error == null) {
        long t1 = System.nanoTime();
        windows.completed(slot, started, t1, 1);
        acked.incrementAndGet();
        if (bench.secondLatencies != null) {
          bench.secondLatencies.add(t1 - started);
        }
        if (acks != null) {
          AppendBench.writeAck(
              acks,
              stream.get(0).name()
                  + " "
                  + r.streamAddresses().get(stream.get(0))
                  + " "
                  + r.globalAddress()
                  + " "
                  + new String(value, StandardCharsets.US_ASCII));
        }
        return true;
      }
      Throwable cause = AppendBench.unwrap(error);
      if (AppendBench.outlastsFailover(cause)) {
        // The client retried through its failover timeout: one failed append, and the load
        // goes on (the cluster may come back).
        errors.incrementAndGet();
        firstError.compareAndSet(null, cause);
        return true;
      }
      stopped.incrementAndGet();
      firstStop.compareAndSet(null, cause);
      return false;
    }
  }
}
