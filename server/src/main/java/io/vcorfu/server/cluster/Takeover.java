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
 * (the one every degraded reader sees: the entry the stream's backpointers lead to, or a hole where
 * none does), written only where the node held no committed record of its own (a committed record
 * of a stream is a decision already; an uncommitted one is replaced). Slots above that tail were
 * issued at epoch {@code e} or later and reach the node through its chain. The epoch whose chains
 * are copied is recorded in {@code DIR/took-up-epoch} once the copy is done, so a restart copies
 * again only what a later takeover added; a copy cut short starts again and skips nothing but is
 * idempotent. Meanwhile readers of those streams read them from the log (a replica that does not
 * serve reads sends them there).
 *
 * <p>The copy walks each stream from its last global address back along the backpointers, one
 * decided log read per entry (scanning the log past aborted entries), as a degraded read does, and
 * installs a page of slots at a time; it runs on a thread of its own and is not paced.
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
  private final AtomicLong copied = new AtomicLong();

  private Future<?> running;
  private long runningFor;
  private volatile boolean stopped;

  public Takeover(Endpoint self, ReplicaStore store, Transport transport, SealedEpoch copiedFor) {
    this.self = self;
    this.store = store;
    this.transport = transport;
    this.copiedFor = copiedFor;
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "takeover-" + self);
              t.setDaemon(true);
              return t;
            });
  }

  /** Slots installed by copies from the log since this node started. */
  public long copied() {
    return copied.get();
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
    stopped = false;
    runningFor = epoch;
    running = thread.submit(() -> runUntilDone(layout, chains, epoch));
  }

  private void stopCopy() {
    stopped = true;
    if (running != null) {
      running.cancel(true);
    }
  }

  private void runUntilDone(Layout layout, Set<Integer> chains, long epoch) {
    long backoff = 100;
    while (!stopped && !Thread.currentThread().isInterrupted()) {
      try {
        long n = copy(layout, chains);
        synchronized (this) {
          if (stopped) {
            return;
          }
          copiedFor.raise(epoch);
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
        if (stopped) {
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
  private long copy(Layout layout, Set<Integer> chains) {
    List<Endpoint> seeds = new ArrayList<>(layout.allServers());
    seeds.remove(self);
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(transport, seeds, StreamLogOptions.defaults())) {
      Set<StreamId> streams = new TreeSet<>();
      for (Endpoint replica : layout.logServers()) {
        for (StreamTailEntry t : log.ops().logTail(replica, true).join().getStreamsList()) {
          StreamId s = StreamId.fromMsg(t.getStream());
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
      long installed = 0;
      for (StreamId s : streams) {
        installed +=
            copyStream(
                log,
                s,
                tails.streamTails().getOrDefault(s, -1L),
                tails.streamLastGlobal().getOrDefault(s, -1L));
      }
      return installed;
    }
  }

  /**
   * Copies slots {@code [0, tail]} of {@code stream} from the log, walking back from {@code
   * lastGlobal}; returns the slots installed.
   */
  private long copyStream(ClusterStreamLog log, StreamId stream, long tail, long lastGlobal) {
    if (tail < 0) {
      return 0;
    }
    long installed = 0;
    long hi = tail;
    long lo = Math.max(0, hi - PAGE + 1);
    Map<Long, ReadResult> page = new HashMap<>();
    long g = lastGlobal;
    while (g >= 0) {
      if (stopped) {
        throw new IllegalStateException("the copy was stopped");
      }
      LogEntryMsg e = log.decidedGlobal(g, g).join().get(0).getEntry();
      StreamSlot slot = e.getKind() == EntryKind.DATA ? slotOf(e, stream) : null;
      if (slot == null) {
        g--; // an aborted entry of the stream: scan back to its previous entry
        continue;
      }
      long sa = slot.getStreamAddress();
      while (sa < lo) {
        installed += install(stream, lo, hi, page);
        hi = lo - 1;
        lo = Math.max(0, hi - PAGE + 1);
      }
      if (sa <= hi) {
        page.put(
            sa,
            ReadResult.newBuilder()
                .setStatus(ReadResult.Status.COMMITTED)
                .setAddress(sa)
                .setEntry(e)
                .build());
      }
      if (sa == 0) {
        break;
      }
      g = slot.getBackpointer();
    }
    // What is left below the last entry found was aborted: holes, as every degraded reader sees.
    while (hi >= 0) {
      installed += install(stream, lo, hi, page);
      hi = lo - 1;
      lo = Math.max(0, hi - PAGE + 1);
    }
    return installed;
  }

  /** Installs {@code [lo, hi]}: the entries of {@code page}, holes elsewhere; clears the page. */
  private long install(StreamId stream, long lo, long hi, Map<Long, ReadResult> page) {
    long before = store.missing(stream, lo, hi);
    if (before == 0) {
      page.clear();
      return 0;
    }
    List<ReadResult> decided = new ArrayList<>((int) (hi - lo + 1));
    for (long a = lo; a <= hi; a++) {
      ReadResult r = page.get(a);
      decided.add(r != null ? r : hole(a));
    }
    store.install(stream, decided).join();
    page.clear();
    long n = before - store.missing(stream, lo, hi);
    copied.addAndGet(n);
    return n;
  }

  private static ReadResult hole(long address) {
    return ReadResult.newBuilder()
        .setStatus(ReadResult.Status.COMMITTED)
        .setAddress(address)
        .setEntry(LogEntryMsg.newBuilder().setGlobalAddress(-1).setKind(EntryKind.HOLE))
        .build();
  }

  private static StreamSlot slotOf(LogEntryMsg e, StreamId stream) {
    for (StreamSlot s : e.getSlotsList()) {
      if (StreamId.fromMsg(s.getStream()).equals(stream)) {
        return s;
      }
    }
    return null;
  }

  @Override
  public synchronized void close() {
    stopCopy();
    thread.shutdownNow();
  }
}
