package io.vcorfu.server.cluster;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.Tails;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.StreamTailEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's side of taking up stream chains that had no replica ({@link
 * LayoutChanges#withTakeover}): the node decides those chains' entries of the takeover epoch on at
 * once, and copies their streams' older entries from the log before it serves reads of them.
 *
 * <p>Invariant: the node serves no read of a stream of a chain it took up at epoch {@code e} until
 * every slot of that stream up to the stream's tail when the copy started holds the log's decision
 * (the one every degraded reader sees: the committed entry that names the slot, or a hole where
 * none does), written only where the node held no committed record of its own (a committed record
 * of a stream is a decision already; an uncommitted one is replaced). Slots above that tail were
 * issued at epoch {@code e} or later and reach the node through its chain. The epoch whose chains
 * are copied is recorded in {@code DIR/took-up-epoch} once the copy is done, so a restart copies
 * again only what a later takeover added; a copy cut short starts again and skips nothing but is
 * idempotent. Meanwhile readers of those streams read them from the log (a replica that does not
 * serve reads sends them there).
 *
 * <p>The copy reads the log once, a page of {@value #PAGE} global addresses at a time, each page
 * decided as any reader decides it (undecided addresses are repaired), from the log's trim mark up
 * to the global tail when the copy starts, and installs every entry of those chains' streams at its
 * stream address; then every slot of those streams up to its tail that no committed entry named is
 * a hole (its token was aborted), and a stream's slots below the log's trim mark are trimmed. One
 * pass serves every stream of the chains at a round trip per page, where walking the backpointers
 * would cost one per entry. It runs on a thread of its own, paced as a rebuild is ({@link
 * RebuildPacer}: at most {@code --rebuild-rate-mb}, slower while foreground writes are slow).
 */
public final class Takeover implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Takeover.class);

  /** Slots installed at once. */
  static final int PAGE = 1024;

  private final Endpoint self;
  private final ReplicaStore store;
  private final Transport transport;
  private final SealedEpoch copiedFor;
  private final ExecutorService thread;
  private final java.util.concurrent.ScheduledExecutorService observer;
  private final long bytesPerSecond;
  private final long foregroundBoundMicros;
  private final AtomicLong copied = new AtomicLong();

  /** The pacer of the copy under way (see {@link RebuildPacer}). */
  private volatile RebuildPacer pacer;

  private Future<?> running;
  private long runningFor;

  /** Set when the copy under way must stop; each copy has its own (a stopped one may linger). */
  private volatile java.util.concurrent.atomic.AtomicBoolean stop =
      new java.util.concurrent.atomic.AtomicBoolean(true);

  /**
   * @param bytesPerSecond the most the copy runs at
   * @param foregroundBoundMicros the 99th percentile of foreground writes the copy slows down to
   *     hold (see {@link RebuildPacer}); 0 for none
   */
  public Takeover(
      Endpoint self,
      ReplicaStore store,
      Transport transport,
      SealedEpoch copiedFor,
      long bytesPerSecond,
      long foregroundBoundMicros) {
    this.self = self;
    this.store = store;
    this.transport = transport;
    this.copiedFor = copiedFor;
    this.bytesPerSecond = bytesPerSecond;
    this.foregroundBoundMicros = foregroundBoundMicros;
    this.thread = Executors.newSingleThreadExecutor(Rebuilder.daemon("takeover-" + self));
    this.observer =
        Executors.newSingleThreadScheduledExecutor(Rebuilder.daemon("takeover-pacer-" + self));
  }

  /** Slots installed by copies from the log since this node started. */
  public long copied() {
    return copied.get();
  }

  private volatile long copyingFor;
  private volatile long copyStartedNanos;
  private final AtomicLong copyBytes = new AtomicLong();
  private final AtomicLong copySlots = new AtomicLong();

  /**
   * The copy under way, for ping answers: the takeover epoch, slots and bytes copied, the rate and
   * the pacer's limit; null when this node copies nothing.
   */
  public io.vcorfu.protocol.proto.RebuildProgress progress() {
    long epoch = copyingFor;
    if (epoch == 0) {
      return null;
    }
    double seconds = Math.max(1e-3, (System.nanoTime() - copyStartedNanos) / 1e9);
    RebuildPacer p = pacer;
    return io.vcorfu.protocol.proto.RebuildProgress.newBuilder()
        .setSinceEpoch(epoch)
        .setEpoch(epoch)
        .setEntriesCopied(copySlots.get())
        .setBytesCopied(copyBytes.get())
        .setBytesPerSecond(copyBytes.get() / seconds)
        .setSecondsLeft(-1)
        .setRateLimitBytesPerSecond(p == null ? 0 : p.bytesPerSecond())
        .setForegroundP99Micros(p == null ? 0 : p.lastP99Micros())
        .build();
  }

  /**
   * Follows {@code layout}: refuses reads of the streams of every stream chain this node took up
   * after the last epoch it copied for, and copies them; serves them again once copied.
   */
  public synchronized void follow(Layout layout) {
    Set<Integer> chains = new TreeSet<>();
    long upTo = 0;
    List<List<Endpoint>> stream = layout.currentSegment().stream();
    for (int c = 0; c < stream.size(); c++) {
      long since = layout.streamChainSince(c);
      if (stream.get(c).contains(self) && since > copiedFor.get()) {
        chains.add(c);
        upTo = Math.max(upTo, since);
      }
    }
    if (chains.isEmpty()) {
      stopCopy();
      copyingFor = 0;
      store.copying(s -> false, "");
      return;
    }
    long epoch = upTo;
    store.copying(
        s -> chains.contains(layout.streamChainIndex(s)),
        "it took up the stream chain of this stream at epoch "
            + epoch
            + " and is still copying the stream's older entries from the log; they are read from"
            + " the log meanwhile");
    if (running != null && !running.isDone() && runningFor == epoch) {
      return;
    }
    stopCopy();
    java.util.concurrent.atomic.AtomicBoolean mine =
        new java.util.concurrent.atomic.AtomicBoolean();
    stop = mine;
    runningFor = epoch;
    copyingFor = epoch;
    copyStartedNanos = System.nanoTime();
    copyBytes.set(0);
    copySlots.set(0);
    running = thread.submit(() -> runUntilDone(layout, chains, epoch, mine));
  }

  private void stopCopy() {
    stop.set(true);
    if (running != null) {
      running.cancel(true);
    }
  }

  private void runUntilDone(
      Layout layout,
      Set<Integer> chains,
      long epoch,
      java.util.concurrent.atomic.AtomicBoolean stopped) {
    long backoff = 100;
    while (!stopped.get() && !Thread.currentThread().isInterrupted()) {
      try {
        long n = copy(layout, chains, stopped);
        synchronized (this) {
          if (stopped.get()) {
            return; // a later layout's copy took over: its gate stays
          }
          copiedFor.raise(epoch);
          copyingFor = 0;
          store.copying(s -> false, "");
        }
        LOG.info(
            "node {} copied the older entries of stream chains {} from the log ({} slots"
                + " installed); it serves their reads",
            self,
            chains,
            n);
        return;
      } catch (RuntimeException e) {
        if (stopped.get()) {
          return;
        }
        LOG.info(
            "node {}: copying stream chains {} from the log failed ({}); retrying in {} ms",
            self,
            chains,
            EpochRpc.unwrap(e).toString(),
            backoff);
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
        backoff = Math.min(5_000, backoff * 2);
      }
    }
  }

  /** Copies every stream of {@code chains} the log knows; returns the slots installed. */
  private long copy(
      Layout layout, Set<Integer> chains, java.util.concurrent.atomic.AtomicBoolean stopped) {
    List<Endpoint> seeds = new ArrayList<>(layout.allServers());
    seeds.remove(self);
    RebuildPacer paced = new RebuildPacer(bytesPerSecond, foregroundBoundMicros, System.nanoTime());
    pacer = paced;
    Runnable stopPacing = () -> {};
    if (foregroundBoundMicros > 0) {
      Set<Endpoint> nodes = new java.util.LinkedHashSet<>(layout.allServers());
      nodes.removeIf(layout::rebuildsAll);
      nodes.add(self);
      stopPacing = paced.follow(nodes, transport, observer);
    }
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(transport, seeds, StreamLogOptions.defaults())) {
      Set<StreamId> streams = new TreeSet<>();
      long logTrim = 0;
      for (Endpoint replica : layout.logServers()) {
        var t = log.ops().logTail(replica, true).join();
        logTrim = Math.max(logTrim, t.getTrimMark());
        for (StreamTailEntry e : t.getStreamsList()) {
          StreamId s = StreamId.fromMsg(e.getStream());
          if (chains.contains(layout.streamChainIndex(s))) {
            streams.add(s);
          }
        }
      }
      LOG.info(
          "node {} took up stream chains {}: copying {} streams from the log",
          self,
          chains,
          streams.size());
      if (streams.isEmpty()) {
        return 0;
      }
      Tails tails = log.tails(streams).join();
      long globalTail = tails.globalTail();
      Map<StreamId, List<ReadResult>> pending = new HashMap<>();
      Map<StreamId, Long> lowest = new HashMap<>();
      Map<StreamId, Named> named = new HashMap<>();
      java.util.TreeSet<Long> lost = new java.util.TreeSet<>();
      long installed = 0;
      long pageSlots = PAGE;
      for (long from = Math.max(0, logTrim); from <= globalTail; ) {
        if (stopped.get()) {
          throw new IllegalStateException("the copy was stopped");
        }
        long to = Math.min(globalTail, from + pageSlots - 1);
        List<ReadResult> decided;
        try {
          decided = log.decidedGlobal(from, to).join();
        } catch (RuntimeException e) {
          if (EpochRpc.unwrap(e) instanceof io.vcorfu.protocol.TooLargeException && to > from) {
            // Large entries: the page's answer would not fit one message; ask for fewer.
            pageSlots = Math.max(1, (to - from + 1) / 2);
            continue;
          }
          throw e;
        }
        from = to + 1;
        for (ReadResult r : decided) {
          LogEntryMsg e = r.getEntry();
          if (e.getKind() == EntryKind.LOST) {
            lost.add(e.getGlobalAddress());
          }
          if (e.getKind() != EntryKind.DATA) {
            continue;
          }
          for (StreamSlot slot : e.getSlotsList()) {
            StreamId s = StreamId.fromMsg(slot.getStream());
            if (!streams.contains(s)) {
              continue;
            }
            long sa = slot.getStreamAddress();
            lowest.merge(s, sa, Math::min);
            named.computeIfAbsent(s, k -> new Named()).add(sa, e.getGlobalAddress());
            List<ReadResult> page = pending.computeIfAbsent(s, k -> new ArrayList<>());
            page.add(
                ReadResult.newBuilder()
                    .setStatus(ReadResult.Status.COMMITTED)
                    .setAddress(sa)
                    .setEntry(e)
                    .build());
            if (page.size() >= PAGE) {
              installed += install(s, page);
            }
          }
        }
      }
      for (StreamId s : streams) {
        installed += install(s, pending.getOrDefault(s, new ArrayList<>()));
        long tail = tails.streamTails().getOrDefault(s, -1L);
        // Below the log's trim mark the log holds nothing: so much of the stream is trimmed.
        long start = logTrim > 0 ? lowest.getOrDefault(s, tail + 1) : 0;
        if (start > 0) {
          try {
            store.streamReplica().trim(s, start).join();
          } catch (RuntimeException e) {
            // Nothing of the stream above the mark is held here: its reads below find the log
            // trimmed, as they would have.
            LOG.info("node {}: stream {} not trimmed at {}: {}", self, s, start, e.toString());
          }
        }
        installed += lost(s, start, tail, named.get(s), lost, logTrim - 1, globalTail);
        installed += holes(s, start, tail);
      }
      return installed;
    } finally {
      stopPacing.run();
    }
  }

  /** Installs the entries of {@code page} (decided, in the log); empties it. */
  private long install(StreamId stream, List<ReadResult> page) {
    if (page.isEmpty()) {
      return 0;
    }
    paced(store.install(stream, page).join());
    long n = page.size();
    copied.addAndGet(n);
    copySlots.addAndGet(n);
    page.clear();
    return n;
  }

  /** Waits as long as the pacer says after {@code bytes} were written. */
  private void paced(long bytes) {
    copyBytes.addAndGet(bytes);
    try {
      pacer.pace(bytes);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("the copy was stopped", e);
    }
  }

  /** The slots of one stream the log names, with their global addresses, in order. */
  private static final class Named {
    long[] slots = new long[16];
    long[] globals = new long[16];
    int n;

    void add(long slot, long global) {
      if (n == slots.length) {
        slots = java.util.Arrays.copyOf(slots, n * 2);
        globals = java.util.Arrays.copyOf(globals, n * 2);
      }
      slots[n] = slot;
      globals[n++] = global;
    }
  }

  /**
   * Installs committed {@code LOST} markers at the slots of {@code [from, to]} of {@code stream}
   * that no entry names and whose token may lie at a log address marked lost (see {@link
   * io.vcorfu.layout.LostLogChains}): a slot's token lies between the global addresses of the
   * nearest named slots below and above it ({@code floor} and {@code globalTail} bound the ends),
   * so when an address in there is marked lost, the slot may have held an entry that is gone with
   * it. Every other unnamed slot was aborted and becomes a hole ({@link #holes}).
   */
  private long lost(
      StreamId stream,
      long from,
      long to,
      Named named,
      java.util.NavigableSet<Long> lost,
      long floor,
      long globalTail) {
    if (lost.isEmpty() || from > to) {
      return 0;
    }
    List<ReadResult> marks = new ArrayList<>();
    long prevSlot = from - 1;
    long prevGlobal = floor;
    int n = named == null ? 0 : named.n;
    for (int i = 0; i <= n; i++) {
      long slot = i < n ? named.slots[i] : to + 1;
      long global = i < n ? named.globals[i] : globalTail + 1;
      if (slot > prevSlot + 1 && !lost.subSet(prevGlobal, false, global, false).isEmpty()) {
        for (long a = Math.max(from, prevSlot + 1); a < Math.min(slot, to + 1); a++) {
          marks.add(
              ReadResult.newBuilder()
                  .setAddress(a)
                  .setStatus(ReadResult.Status.COMMITTED)
                  .setEntry(
                      LogEntryMsg.newBuilder()
                          .setGlobalAddress(-1)
                          .setKind(EntryKind.LOST)
                          .addSlots(
                              io.vcorfu.protocol.proto.StreamSlot.newBuilder()
                                  .setStream(stream.toMsg())
                                  .setStreamAddress(a)))
                  .build());
        }
      }
      prevSlot = Math.max(prevSlot, slot);
      prevGlobal = global;
    }
    if (marks.isEmpty()) {
      return 0;
    }
    LOG.warn(
        "node {}: {} slots of stream {} may have held entries lost with their log chain; they"
            + " read as lost",
        self,
        marks.size(),
        stream);
    long before = store.missing(stream, from, to);
    paced(store.install(stream, marks).join());
    long n2 = before - store.missing(stream, from, to);
    copied.addAndGet(n2);
    copySlots.addAndGet(n2);
    return n2;
  }

  /**
   * Installs holes at the slots of {@code [from, to]} of {@code stream} that hold no committed
   * record once every entry the log holds is installed: no committed entry names them, so their
   * tokens were aborted, as every degraded reader sees.
   */
  private long holes(StreamId stream, long from, long to) {
    long n = 0;
    for (long lo = from; lo <= to; lo += PAGE) {
      long hi = Math.min(to, lo + PAGE - 1);
      long missing = store.missing(stream, lo, hi);
      if (missing == 0) {
        continue;
      }
      List<ReadResult> page = new ArrayList<>((int) (hi - lo + 1));
      for (long a = lo; a <= hi; a++) {
        page.add(io.vcorfu.client.read.RepairingReader.streamHole(a));
      }
      paced(store.install(stream, page).join());
      long filled = missing - store.missing(stream, lo, hi);
      copied.addAndGet(filled);
      copySlots.addAndGet(filled);
      n += filled;
    }
    return n;
  }

  @Override
  public synchronized void close() {
    stopCopy();
    thread.shutdownNow();
    observer.shutdownNow();
  }
}
