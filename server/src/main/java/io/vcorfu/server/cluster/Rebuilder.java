package io.vcorfu.server.cluster;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LostLogChains;
import io.vcorfu.layout.MemberChanges;
import io.vcorfu.layout.Segment;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.proto.RebuildProgress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies to this node's rebuilding replicas what their chains decided before the node joined them
 * (see {@link LayoutChanges#withRebuilding} and {@link MemberChanges#withMemberRebuilding}): every
 * slot of every stream whose chain the node rebuilds, up to the stream's tail when the copy starts,
 * and every address of the closed segments' log chains the node will join when it is promoted
 * ({@link LayoutChanges#closedLogChainsToCopy}). What the chains write from the join on reaches the
 * node through the chains themselves. Log chains it holds alone because every replica they had was
 * lost are rebuilt from the stream replicas instead ({@link LogFromStreams}).
 *
 * <p>Invariant: it writes only decisions, and only where the node holds no committed record. Each
 * slot is read through its chain's decider (never this node: a rebuilding replica is never the last
 * of a chain) as any reader reads it, waiting for and repairing undecided slots, so what it copies
 * is the one outcome every reader sees; and a committed record already here is a decision too (see
 * {@code JoinState}). So a copy is idempotent and resumable: a copy that stops (this node restarts,
 * a source dies, the layout changes) is started again and skips, a page at a time, what is held.
 *
 * <p>The copy runs on threads of its own, a page (about {@value #PAGE_BYTES} bytes, at most {@value
 * #PAGE} slots) at a time, never on a thread the node's failure detection or requests use. It is
 * paced by a {@link RebuildPacer}: at most {@code bytesPerSecond}, and slower while the 99th
 * percentile of foreground writes on the nodes it copies from or to (their ping answers, every 250
 * ms) is above the configured bound, so that foreground requests keep the disk, network and
 * processors they need. Once it finishes against the layout of some epoch, {@link #progress()} says
 * so ({@code done} at that epoch) and the manager promotes the node with a second compare-and-set.
 *
 * <p>{@link RebuildScope} decides what a copy covers, {@link RangeCopy} copies one range of it
 * (reading closed log pages through {@link DecidedLogPage}), and {@link RebuildRun} counts what the
 * copies did; this class follows the layout, and runs and retries the copies.
 */
public final class Rebuilder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Rebuilder.class);

  /** The most slots per read-and-install step. */
  static final int PAGE = 1024;

  /**
   * The bytes a read-and-install step aims at: the page size in slots follows the entries' size so
   * that a step's read, its install and the disk write that makes it durable stay short, and the
   * node's foreground writes, queued behind them on the same disk and threads, never wait long.
   */
  static final long PAGE_BYTES = 1 << 20;

  /** Slots of the first page of a range, before the entries' size is known. */
  static final int FIRST_PAGE = 16;

  /** Pages copied at once (streams, and slices of the closed log segments). */
  static final int WORKERS = 4;

  private final Endpoint self;
  private final ReplicaStore store;
  private final Transport transport;
  private final long bytesPerSecond;
  private final long foregroundBoundMicros;
  private final ExecutorService thread;
  private final java.util.concurrent.ScheduledExecutorService observer;

  private Future<?> running;
  private long runningEpoch;
  private volatile RebuildRun current;
  private volatile RebuildProgress lastFinished;

  /** A copy that runs longer logs its progress this often. */
  static final long PROGRESS_LOG_SECONDS = 10;

  /** A rebuilder that copies at most {@code bytesPerSecond}, not paced by the foreground. */
  public Rebuilder(Endpoint self, ReplicaStore store, Transport transport, long bytesPerSecond) {
    this(self, store, transport, bytesPerSecond, 0);
  }

  /**
   * @param bytesPerSecond the most the copy runs at
   * @param foregroundBoundMicros the 99th percentile of foreground writes the copy slows down to
   *     hold (see {@link RebuildPacer}); 0 for none
   */
  public Rebuilder(
      Endpoint self,
      ReplicaStore store,
      Transport transport,
      long bytesPerSecond,
      long foregroundBoundMicros) {
    this.self = self;
    this.store = store;
    this.transport = transport;
    this.bytesPerSecond = bytesPerSecond;
    this.foregroundBoundMicros = foregroundBoundMicros;
    this.observer = Executors.newSingleThreadScheduledExecutor(daemon("rebuild-pacer-" + self));
    this.thread = Executors.newSingleThreadExecutor(daemon("rebuild-" + self));
  }

  /**
   * Follows {@code layout}: starts a copy against it when it names this node rebuilding (stopping a
   * copy against an older layout first); stops copying when it does not.
   */
  public synchronized void follow(Layout layout) {
    Long since = layout.rebuilding().get(self);
    if (since == null) {
      stop();
      current = null;
      return;
    }
    if (running != null && !running.isDone() && runningEpoch == layout.epoch()) {
      return;
    }
    stop();
    RebuildRun previous = current;
    RebuildRun run =
        new RebuildRun(
            since,
            layout.epoch(),
            new RebuildPacer(bytesPerSecond, foregroundBoundMicros, System.nanoTime()));
    if (previous != null && previous.since == since) {
      run.carriedCopied = previous.copied.get();
      run.carriedBytes = previous.bytes.get();
      run.copied.set(run.carriedCopied);
      run.bytes.set(run.carriedBytes);
    }
    current = run;
    runningEpoch = layout.epoch();
    running = thread.submit(() -> runUntilDone(layout, run));
  }

  private void stop() {
    RebuildRun run = current;
    if (run != null) {
      run.stopped = true;
    }
    if (running != null) {
      running.cancel(true);
    }
  }

  /** Threads named {@code name} that do not keep the process alive. */
  static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** How the copy goes, for ping answers; null when this node is not rebuilding. */
  public RebuildProgress progress() {
    RebuildRun run = current;
    return run == null ? null : run.progress();
  }

  /** The progress of the last copy that finished, kept after promotion; null when none did. */
  public RebuildProgress lastFinished() {
    return lastFinished;
  }

  private void runUntilDone(Layout layout, RebuildRun run) {
    long backoff = 100;
    while (!run.stopped && !Thread.currentThread().isInterrupted()) {
      try {
        run.held.set(0);
        run.copiedBefore = run.copied.get();
        copy(layout, run);
        run.done = true;
        run.left.set(0);
        lastFinished = progress();
        LOG.info(
            "node {} finished rebuilding against the layout of epoch {}: {} slots copied ({}"
                + " bytes), {} held already",
            self,
            layout.epoch(),
            run.copied.get(),
            run.bytes.get(),
            lastFinished.getEntriesHeld());
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        if (run.stopped) {
          return;
        }
        Throwable cause = EpochRpc.unwrap(e);
        run.lastError = String.valueOf(cause);
        LOG.info("node {}: rebuild attempt failed ({}); retrying in {} ms", self, cause, backoff);
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException stopped) {
          Thread.currentThread().interrupt();
          return;
        }
        backoff = Math.min(5_000, backoff * 2);
      }
    }
  }

  private void copy(Layout layout, RebuildRun run) throws InterruptedException {
    List<Endpoint> seeds = new ArrayList<>();
    for (Endpoint e : layout.allServers()) {
      if (!e.equals(self) && !layout.rebuildsAll(e)) {
        seeds.add(e);
      }
    }
    Runnable stopPacing = paceByForeground(layout, run);
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(transport, seeds, StreamLogOptions.defaults())) {
      RebuildScope scope = new RebuildScope(self, store, layout, log);
      Map<StreamId, long[]> streams = scope.streamsToCopy();
      scope.adoptLogTrimMark();
      Map<Integer, Set<Integer>> logChains = scope.closedLogChains();
      long left = 0;
      for (long[] range : streams.values()) {
        left += Math.max(0, range[1] - range[0] + 1);
      }
      for (int s : logChains.keySet()) {
        Segment seg = layout.segments().get(s);
        left += Math.max(0, seg.end() - seg.start());
      }
      List<int[]> lost = LostLogChains.rebuiltBy(layout, self);
      LogFromStreams fromStreams =
          lost.isEmpty() ? null : new LogFromStreams(self, store, log.ops(), layout, lost);
      long lostAddresses = fromStreams == null ? 0 : fromStreams.addresses();
      left += lostAddresses;
      run.left.set(left);
      LOG.info(
          "node {} rebuilds against the layout of epoch {}: {} streams, {} closed log segments,"
              + " about {} slots to examine",
          self,
          layout.epoch(),
          streams.size(),
          logChains.size(),
          left);
      RangeCopy ranges = new RangeCopy(store, log, layout, run, self);
      List<Callable<Void>> tasks = new ArrayList<>();
      if (fromStreams != null) {
        LOG.info(
            "node {} rebuilds {} log chains whose every replica was lost from the stream replicas",
            self,
            lost.size());
        tasks.add(
            () -> {
              LogFromStreams.Result r =
                  fromStreams.copy(
                      bytes -> {
                        try {
                          run.pacer.pace(bytes);
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                      },
                      () -> run.stopped);
              run.copied.addAndGet(r.committed() + r.undecided());
              run.held.addAndGet(lostAddresses - r.committed() - r.undecided());
              run.bytes.addAndGet(r.bytes());
              run.left.addAndGet(-lostAddresses);
              return null;
            });
      }
      for (Map.Entry<StreamId, long[]> e : streams.entrySet()) {
        tasks.add(
            () -> {
              ranges.copy(e.getKey(), e.getValue()[0], e.getValue()[1], null, 0);
              return null;
            });
      }
      for (Map.Entry<Integer, Set<Integer>> e : logChains.entrySet()) {
        Segment seg = layout.segments().get(e.getKey());
        // A closed segment in slices, so that a long one is copied by every worker.
        long slice = (long) PAGE * WORKERS;
        for (long from = seg.start(); from < seg.end(); from += slice) {
          long start = from;
          long end = Math.min(seg.end() - 1, from + slice - 1);
          tasks.add(
              () -> {
                ranges.copy(null, start, end, e.getValue(), seg.log().size());
                return null;
              });
        }
      }
      runAll(tasks, "rebuild-copy-" + self, () -> logProgress(run));
    } finally {
      stopPacing.run();
    }
  }

  /**
   * Has {@code run}'s pacer follow the foreground latency of this node and every serving node of
   * {@code layout}; returns what stops it (nothing to stop when pacing by the foreground is off).
   */
  private Runnable paceByForeground(Layout layout, RebuildRun run) {
    if (foregroundBoundMicros <= 0) {
      return () -> {};
    }
    Set<Endpoint> nodes = new java.util.LinkedHashSet<>();
    nodes.add(self);
    for (Endpoint e : layout.allServers()) {
      if (!layout.rebuildsAll(e)) {
        nodes.add(e);
      }
    }
    return run.pacer.follow(nodes, transport, observer);
  }

  /** Logs how far {@code run} got. */
  private void logProgress(RebuildRun run) {
    RebuildProgress p = run.progress();
    LOG.info(
        "node {} rebuilding: {} slots copied ({} bytes, {} MB/s), {} held already, about {}"
            + " left{}",
        self,
        p.getEntriesCopied(),
        p.getBytesCopied(),
        String.format(java.util.Locale.ROOT, "%.1f", p.getBytesPerSecond() / 1e6),
        p.getEntriesHeld(),
        p.getEntriesLeft(),
        p.getSecondsLeft() < 0
            ? ""
            : String.format(java.util.Locale.ROOT, " (%.0f s)", p.getSecondsLeft()));
  }

  /**
   * Waits for every task of {@code tasks} in turn, running {@code report} each time {@code
   * intervalNanos} pass without all of them done, however short each task is; fails with the
   * failure of the first failed task it waits for.
   */
  static void awaitAll(List<Future<Void>> tasks, long intervalNanos, Runnable report)
      throws InterruptedException, ExecutionException {
    awaitAll(tasks, intervalNanos, System::nanoTime, report);
  }

  /** {@link #awaitAll(List, long, Runnable)} with time read from {@code clock} (nanoseconds). */
  static void awaitAll(
      List<Future<Void>> tasks,
      long intervalNanos,
      java.util.function.LongSupplier clock,
      Runnable report)
      throws InterruptedException, ExecutionException {
    long nextReport = clock.getAsLong() + intervalNanos;
    for (Future<Void> task : tasks) {
      while (true) {
        long now = clock.getAsLong();
        if (now >= nextReport) {
          report.run();
          nextReport = now + intervalNanos;
        }
        try {
          task.get(nextReport - now, java.util.concurrent.TimeUnit.NANOSECONDS);
          break;
        } catch (java.util.concurrent.TimeoutException stillCopying) {
          // The next pass reports: the interval is over.
        }
      }
    }
  }

  /**
   * Runs {@code tasks} on {@value #WORKERS} threads named {@code threads}, running {@code report}
   * every {@value #PROGRESS_LOG_SECONDS} s until all are done; fails with the first failure, if any
   * (a task stopped by its run's flag fails with InterruptedException).
   */
  static void runAll(List<Callable<Void>> tasks, String threads, Runnable report)
      throws InterruptedException {
    ExecutorService workers = Executors.newFixedThreadPool(WORKERS, daemon(threads));
    try {
      List<Future<Void>> done = new ArrayList<>();
      for (Callable<Void> task : tasks) {
        done.add(workers.submit(task));
      }
      try {
        awaitAll(done, java.util.concurrent.TimeUnit.SECONDS.toNanos(PROGRESS_LOG_SECONDS), report);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof InterruptedException stopped) {
          throw stopped;
        }
        throw cause instanceof RuntimeException failure
            ? failure
            : new IllegalStateException(cause.toString(), cause);
      }
    } finally {
      workers.shutdownNow();
    }
  }

  /**
   * The slots of the next page, given that the last one of {@code slots} slots read {@code bytes}:
   * about {@link #PAGE_BYTES}, between 1 and {@link #PAGE}.
   */
  static long nextPageSlots(long slots, long bytes) {
    if (bytes <= 0) {
      return PAGE;
    }
    return Math.max(1, Math.min(PAGE, slots * PAGE_BYTES / bytes));
  }

  @Override
  public synchronized void close() {
    stop();
    thread.shutdownNow();
    observer.shutdownNow();
  }
}
