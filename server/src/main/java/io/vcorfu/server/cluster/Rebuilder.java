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
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.RebuildProgress;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.protocol.proto.StreamTailResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
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
  private volatile Run current;
  private volatile RebuildProgress lastFinished;

  /** A copy that runs longer logs its progress this often. */
  static final long PROGRESS_LOG_SECONDS = 10;

  /**
   * What the copies of one join did so far, against one layout. {@code copied} and {@code bytes}
   * count every slot this join installed, over all its attempts and layouts; {@code held} counts
   * the slots the current attempt found already here, so slots an earlier attempt of the same join
   * copied ({@code copiedBefore}) are taken out of it to report what the node held from before.
   */
  private static final class Run {
    final long since;
    final long epoch;
    final long startedNanos = System.nanoTime();
    final AtomicLong copied = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
    final AtomicLong held = new AtomicLong();
    volatile long copiedBefore;
    long carriedCopied;
    long carriedBytes;
    final AtomicLong left = new AtomicLong();
    final RebuildPacer pacer;
    volatile boolean done;
    volatile boolean stopped;
    volatile String lastError = "";

    Run(long since, long epoch, RebuildPacer pacer) {
      this.since = since;
      this.epoch = epoch;
      this.pacer = pacer;
    }
  }

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
    Run previous = current;
    Run run =
        new Run(
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
    Run run = current;
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
    Run run = current;
    return run == null ? null : progressOf(run);
  }

  private static RebuildProgress progressOf(Run run) {
    double seconds = Math.max(1e-3, (System.nanoTime() - run.startedNanos) / 1e9);
    return RebuildProgress.newBuilder()
        .setSinceEpoch(run.since)
        .setEpoch(run.epoch)
        .setDone(run.done)
        .setEntriesCopied(run.copied.get())
        .setBytesCopied(run.bytes.get())
        .setEntriesHeld(Math.max(0, run.held.get() - run.copiedBefore))
        .setEntriesLeft(Math.max(0, run.left.get()))
        .setBytesPerSecond((run.bytes.get() - run.carriedBytes) / seconds)
        .setSecondsLeft(secondsLeft(run, seconds))
        .setLastError(run.lastError)
        .setRateLimitBytesPerSecond(run.pacer.bytesPerSecond())
        .setForegroundP99Micros(run.pacer.lastP99Micros())
        .build();
  }

  /** The progress of the last copy that finished, kept after promotion; null when none did. */
  public RebuildProgress lastFinished() {
    return lastFinished;
  }

  private static double secondsLeft(Run run, double seconds) {
    if (run.done) {
      return 0;
    }
    double examinedPerSecond = (run.copied.get() - run.carriedCopied + run.held.get()) / seconds;
    return examinedPerSecond <= 0 ? -1 : Math.max(0, run.left.get()) / examinedPerSecond;
  }

  private void runUntilDone(Layout layout, Run run) {
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

  private void copy(Layout layout, Run run) throws InterruptedException {
    List<Endpoint> seeds = new ArrayList<>();
    for (Endpoint e : layout.allServers()) {
      if (!e.equals(self) && !layout.rebuildsAll(e)) {
        seeds.add(e);
      }
    }
    Runnable stopPacing = paceByForeground(layout, run);
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(transport, seeds, StreamLogOptions.defaults())) {
      Map<StreamId, long[]> streams = streamsToCopy(layout, log);
      adoptLogTrimMark(layout, log);
      Map<Integer, Set<Integer>> logChains = new TreeMap<>();
      for (int[] sc : LayoutChanges.closedLogChainsToCopy(layout, self)) {
        logChains.computeIfAbsent(sc[0], k -> new HashSet<>()).add(sc[1]);
      }
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
              copyRange(log, layout, run, e.getKey(), e.getValue()[0], e.getValue()[1], null, 0);
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
                copyRange(log, layout, run, null, start, end, e.getValue(), seg.log().size());
                return null;
              });
        }
      }
      runAll(tasks, run);
    } finally {
      stopPacing.run();
    }
  }

  /**
   * Has {@code run}'s pacer follow the foreground latency of this node and every serving node of
   * {@code layout}; returns what stops it (nothing to stop when pacing by the foreground is off).
   */
  private Runnable paceByForeground(Layout layout, Run run) {
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
  private void logProgress(Run run) {
    RebuildProgress p = progressOf(run);
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

  /** Runs {@code tasks} on {@value #WORKERS} threads; fails with the first failure, if any. */
  private void runAll(List<Callable<Void>> tasks, Run run) throws InterruptedException {
    ExecutorService workers = Executors.newFixedThreadPool(WORKERS, daemon("rebuild-copy-" + self));
    try {
      List<Future<Void>> done = new ArrayList<>();
      for (Callable<Void> task : tasks) {
        done.add(workers.submit(task));
      }
      try {
        awaitAll(
            done,
            java.util.concurrent.TimeUnit.SECONDS.toNanos(PROGRESS_LOG_SECONDS),
            () -> logProgress(run));
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
   * Takes the highest trim mark the log replicas that answer hold (the global log is trimmed by
   * prefix everywhere alike, and only below what every stream has trimmed): below it there is
   * nothing to copy, and this replica reads TRIMMED there as the others do.
   */
  private void adoptLogTrimMark(Layout layout, ClusterStreamLog log) {
    long mark = 0;
    for (Endpoint e : layout.logServers()) {
      if (e.equals(self) || layout.rebuildsAll(e)) {
        continue;
      }
      try {
        mark = Math.max(mark, log.ops().logTail(e).join().getTrimMark());
      } catch (RuntimeException notAnswering) {
        // Another replica's mark will do, or the next round of the log's trim.
      }
    }
    if (mark > 0) {
      store.adoptTrimMark(null, mark, -1).join();
    }
  }

  /**
   * Every stream whose chain holds this node, with the range to copy: from its trim mark to its
   * tail as the sequencer reports it now (every slot issued before the join is at or below it). The
   * streams are those any serving replica of this node's stream chains knows.
   */
  private Map<StreamId, long[]> streamsToCopy(Layout layout, ClusterStreamLog log) {
    Set<Endpoint> sources = new HashSet<>();
    List<List<Endpoint>> chains = layout.currentSegment().stream();
    for (int c = 0; c < chains.size(); c++) {
      if (chains.get(c).contains(self) && layout.rebuildsStream(self, c)) {
        sources.addAll(layout.servingStream(c));
      }
    }
    Map<StreamId, Long> trim = new HashMap<>();
    Map<StreamId, Long> floor = new HashMap<>();
    for (Endpoint source : sources) {
      StreamTailResponse r = log.ops().streamTail(source, List.of(), true).join();
      for (StreamTailEntry t : r.getTailsList()) {
        StreamId s = StreamId.fromMsg(t.getStream());
        if (layout.rebuildsStream(self, layout.streamChainIndex(s))) {
          trim.merge(s, Math.max(0, t.getTrimMark()), Math::max);
          floor.merge(s, t.getTrimFloorGlobal(), Math::max);
        }
      }
    }
    // Below the chain's trim mark there is nothing to copy: this replica takes the mark itself.
    trim.forEach(
        (s, mark) -> {
          if (mark > 0) {
            store.adoptTrimMark(s, mark, floor.getOrDefault(s, -1L)).join();
          }
        });
    Map<StreamId, long[]> out = new TreeMap<>();
    if (trim.isEmpty()) {
      return out;
    }
    Map<StreamId, Long> tails = log.tails(trim.keySet()).join().streamTails();
    trim.forEach(
        (s, mark) -> {
          long tail = tails.getOrDefault(s, -1L);
          if (tail >= mark) {
            out.put(s, new long[] {mark, tail});
          }
        });
    return out;
  }

  /**
   * Copies {@code [from, to]} of {@code stream} (the global log when null; then only addresses of
   * the log chains {@code chains} of a segment with {@code chainCount} chains), a page at a time.
   */
  private void copyRange(
      ClusterStreamLog log,
      Layout layout,
      Run run,
      StreamId stream,
      long from,
      long to,
      Set<Integer> chains,
      int chainCount)
      throws InterruptedException {
    java.util.function.LongPredicate counted =
        chains == null ? x -> true : x -> chains.contains((int) (x % chainCount));
    long a = from;
    long pageSlots = FIRST_PAGE;
    while (a <= to) {
      if (run.stopped || Thread.currentThread().isInterrupted()) {
        throw new InterruptedException("the rebuild was stopped");
      }
      long end = Math.min(to, a + pageSlots - 1);
      long missingBefore = store.missing(stream, a, end, counted);
      if (missingBefore == 0) {
        run.held.addAndGet(end - a + 1);
        run.left.addAndGet(-(end - a + 1));
        a = end + 1;
        continue;
      }
      List<ReadResult> decided;
      try {
        decided =
            stream == null
                ? decidedLog(log, layout, a, end, chains, chainCount)
                : log.decidedStream(stream, a, end).join();
      } catch (RuntimeException e) {
        if (EpochRpc.unwrap(e) instanceof TooLargeException && end > a) {
          // Large entries: the page's answer would not fit one message; ask for fewer slots.
          pageSlots = Math.max(1, (end - a + 1) / 2);
          continue;
        }
        if (EpochRpc.unwrap(e) instanceof TrimmedException t && t.trimMark() > a) {
          // The chain trimmed below t.trimMark() meanwhile: so does this replica.
          long mark = Math.min(t.trimMark(), to + 1);
          trimHere(stream, mark);
          run.left.addAndGet(-(mark - a));
          a = mark;
          continue;
        }
        throw e;
      }
      List<ReadResult> mine = new ArrayList<>();
      long pageBytes = 0;
      for (ReadResult r : decided) {
        pageBytes += r.getSerializedSize();
        if (counted.test(r.getAddress())) {
          mine.add(r);
        }
      }
      pageSlots = nextPageSlots(end - a + 1, pageBytes);
      long bytes = store.install(stream, mine).join();
      long installed = missingBefore - store.missing(stream, a, end, counted);
      run.copied.addAndGet(installed);
      run.held.addAndGet(end - a + 1 - installed);
      run.bytes.addAndGet(bytes);
      run.left.addAndGet(-(end - a + 1));
      run.pacer.pace(bytes);
      a = end + 1;
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

  /**
   * The decided log slots of {@code [from, to]} of the given chains: read once from one serving
   * replica of those chains (committed DATA there is a decision: a commit bit is set only once the
   * whole chain holds the entry); every other slot read again through the repairing reader, which
   * decides it. (The repairing reader alone would ask every chain's last replica for the whole
   * range.)
   */
  private static List<ReadResult> decidedLog(
      ClusterStreamLog log, Layout layout, long from, long to, Set<Integer> chains, int count) {
    long first = from;
    while (first < to && !chains.contains((int) (first % count))) {
      first++;
    }
    List<Endpoint> serving = layout.servingLog(first);
    Endpoint source = serving.get(serving.size() - 1);
    List<ReadResult> raw = new ArrayList<>();
    for (long a = from; a <= to; a += PAGE) {
      raw.addAll(log.ops().logRead(source, a, Math.min(to, a + PAGE - 1)).join());
    }
    List<ReadResult> out = new ArrayList<>(raw.size());
    for (int i = 0; i < raw.size(); i++) {
      long address = from + i;
      ReadResult r = raw.get(i);
      if (!chains.contains((int) (address % count))) {
        continue;
      }
      boolean decided =
          r.getStatus() == ReadResult.Status.COMMITTED
              && r.getEntry().getKind() == io.vcorfu.protocol.proto.EntryKind.DATA
              && layout.logChain(address).contains(source);
      out.add(
          decided
              ? r.toBuilder().setAddress(address).build()
              : log.decidedGlobal(address, address).join().get(0));
    }
    return out;
  }

  private void trimHere(StreamId stream, long mark) {
    if (stream == null) {
      store.logReplica().trim(mark).join();
    } else {
      store.streamReplica().trim(stream, mark).join();
    }
  }

  @Override
  public synchronized void close() {
    stop();
    thread.shutdownNow();
    observer.shutdownNow();
  }
}
