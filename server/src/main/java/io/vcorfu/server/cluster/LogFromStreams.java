package io.vcorfu.server.cluster;

import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LostLogChains;
import io.vcorfu.layout.Segment;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogTailResponse;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamTailEntry;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds, on this node, the log chains it holds alone and rebuilds from the stream replicas (see
 * {@link LostLogChains}): every serving stream replica is read, stream by stream, and each entry
 * whose global address lies on one of those chains is put back in the log at that address.
 *
 * <p>Invariant: what it stores at an address is what the lost log replica could have held there,
 * and no reader has seen anything else. A stream copy that is committed is the entry's decision
 * (the log copy was written before it, and the chains agree): it is stored committed. An entry no
 * stream replica holds committed was never acknowledged nor read: it is stored uncommitted, as the
 * writer left the log copy, and readers decide it as any unfinished write once the node serves. An
 * address no stream replica holds anything for is marked {@code LOST}, committed: it held an entry
 * written to no stream, an entry whose stream chains were lost too, or nothing acknowledged, and
 * readers are told so ({@code DataLossException}) rather than given a hole that might hide an
 * entry. Every store is skipped where the node already holds a record, so a copy that stops (either
 * side restarts, the layout changes) is started again from the top without harm.
 *
 * <p>Cost: every stream every serving stream replica holds is read once per attempt (not only the
 * lost chains' entries: a stream replica is indexed by stream, not by global address). Memory: one
 * bit per address of the chains, and the uncommitted copies (entries in flight when the chain was
 * lost); committed copies are stored a page at a time as they are found.
 */
final class LogFromStreams {
  private static final Logger LOG = LoggerFactory.getLogger(LogFromStreams.class);

  /** Slots per stream read. */
  private static final int PAGE = Rebuilder.PAGE;

  /** What one copy stored. */
  record Result(long committed, long undecided, long lost, long bytes) {}

  private final Endpoint self;
  private final ReplicaStore store;
  private final ReplicaClient ops;
  private final Layout layout;
  private final List<int[]> chains;

  /**
   * @param chains the (segment index, chain index) pairs of {@code layout}'s log chains to rebuild
   */
  LogFromStreams(
      Endpoint self, ReplicaStore store, ReplicaClient ops, Layout layout, List<int[]> chains) {
    this.self = self;
    this.store = store;
    this.ops = ops;
    this.layout = layout;
    this.chains = chains;
  }

  /** How many addresses the chains cover. */
  long addresses() {
    long n = 0;
    for (int[] sc : chains) {
      n += LostLogChains.addressesOn(layout.segments().get(sc[0]), sc[1], 0);
    }
    return n;
  }

  /**
   * Copies; {@code paced} is told the bytes of each page read (it may block to hold the rate).
   *
   * @throws InterruptedException when {@code stopped} says so
   */
  Result copy(LongConsumer paced, BooleanSupplier stopped) throws InterruptedException {
    long trim = logTrimMark();
    if (trim > 0) {
      store.logReplica().trim(trim).join();
    }
    Found found = new Found();
    long bytes = 0;
    for (Endpoint source : sources()) {
      for (StreamTailEntry t : ops.streamTail(source, List.of(), true).join().getTailsList()) {
        StreamId stream = StreamId.fromMsg(t.getStream());
        long pageSlots = PAGE;
        for (long a = Math.max(0, t.getTrimMark()); a <= t.getTail(); ) {
          if (stopped.getAsBoolean() || Thread.currentThread().isInterrupted()) {
            throw new InterruptedException("the rebuild was stopped");
          }
          long end = Math.min(t.getTail(), a + pageSlots - 1);
          List<ReadResult> page;
          try {
            page = ops.streamRead(source, stream, a, end).join();
          } catch (RuntimeException e) {
            if (EpochRpc.unwrap(e) instanceof TooLargeException && end > a) {
              pageSlots = Math.max(1, (end - a + 1) / 2);
              continue;
            }
            throw e;
          }
          long pageBytes = 0;
          for (ReadResult r : page) {
            pageBytes += r.getSerializedSize();
            found.note(r);
          }
          bytes += pageBytes;
          paced.accept(pageBytes);
          a = end + 1;
        }
      }
    }
    return store(found, trim, bytes);
  }

  /**
   * What the copy found so far: one bit per address of the chains that a committed copy was found
   * for (those copies are stored as they come, a page at a time), and the uncommitted copies of the
   * other addresses, kept until the end (only entries in flight when the chain was lost: few).
   */
  private final class Found {
    private final BitSet[] committed = new BitSet[chains.size()];
    private final Map<Long, ReadResult> undecided = new TreeMap<>();
    private final List<ReadResult> page = new ArrayList<>();
    private long committedCount;

    /** The bit of address {@code a} (on one of the chains), or null when it is on none. */
    private long[] slot(long a) {
      for (int i = 0; i < chains.size(); i++) {
        int[] sc = chains.get(i);
        Segment s = layout.segments().get(sc[0]);
        if (s.contains(a) && a % s.log().size() == sc[1]) {
          // Addresses of one chain are count apart: (a - start) / count tells them apart.
          return new long[] {i, (a - s.start()) / s.log().size()};
        }
      }
      return null;
    }

    private boolean committedAt(long a) {
      long[] slot = slot(a);
      BitSet bits = committed[(int) slot[0]];
      return bits != null && bits.get((int) slot[1]);
    }

    /** Keeps {@code r} when it is a copy of an entry on the chains, the committed one first. */
    void note(ReadResult r) {
      boolean held =
          r.getStatus() == ReadResult.Status.COMMITTED
              || r.getStatus() == ReadResult.Status.UNCOMMITTED;
      LogEntryMsg e = r.getEntry();
      if (!held || e.getKind() == EntryKind.LOST || e.getGlobalAddress() < 0) {
        return;
      }
      long g = e.getGlobalAddress();
      long[] slot = slot(g);
      if (slot == null) {
        return;
      }
      BitSet bits = committed[(int) slot[0]];
      if (bits == null) {
        bits = committed[(int) slot[0]] = new BitSet();
      }
      if (bits.get((int) slot[1])) {
        return;
      }
      if (r.getStatus() == ReadResult.Status.COMMITTED) {
        bits.set((int) slot[1]);
        undecided.remove(g);
        committedCount++;
        page.add(r.toBuilder().setAddress(g).build());
        if (page.size() == PAGE) {
          flush();
        }
        return;
      }
      undecided.merge(g, r, (a, b) -> a.getEntry().getKind() == EntryKind.DATA ? a : b);
    }

    /** Stores the committed copies noted since the last flush. */
    void flush() {
      if (!page.isEmpty()) {
        store.install(null, List.copyOf(page)).join();
        page.clear();
      }
    }
  }

  private Result store(Found found, long trim, long bytes) {
    found.flush();
    List<LogEntryMsg> undecided = new ArrayList<>();
    for (ReadResult r : found.undecided.values()) {
      undecided.add(r.getEntry());
    }
    long stored = store.installUndecided(undecided).join();
    long lost = 0;
    List<Long> missing = new ArrayList<>();
    for (int[] sc : chains) {
      Segment s = layout.segments().get(sc[0]);
      long count = s.log().size();
      for (long a = Math.max(s.start(), trim); a < s.end(); a++) {
        if (a % count == sc[1] && !found.committedAt(a) && !found.undecided.containsKey(a)) {
          missing.add(a);
          if (missing.size() == PAGE) {
            lost += store.markLost(missing).join();
            missing.clear();
          }
        }
      }
    }
    lost += store.markLost(missing).join();
    LOG.info(
        "node {} rebuilt log chains from the stream replicas: {} entries decided, {} undecided"
            + " (stored as the writer left them), {} addresses held by no stream replica marked"
            + " lost",
        self,
        found.committedCount,
        stored,
        lost);
    return new Result(found.committedCount, stored, lost, bytes);
  }

  /**
   * Every node but this one that is a member of a stream chain of any segment and serves (does not
   * rebuild every chain it is in).
   */
  private Set<Endpoint> sources() {
    Set<Endpoint> out = new LinkedHashSet<>();
    for (Segment s : layout.segments()) {
      for (List<Endpoint> chain : s.stream()) {
        for (Endpoint e : chain) {
          if (!e.equals(self) && !layout.rebuildsAll(e)) {
            out.add(e);
          }
        }
      }
    }
    return out;
  }

  /** The highest trim mark of the other serving log replicas that answer; 0 when none does. */
  private long logTrimMark() {
    long mark = 0;
    for (Endpoint e : layout.logServers()) {
      if (e.equals(self) || layout.rebuildsAll(e)) {
        continue;
      }
      try {
        LogTailResponse r = ops.logTail(e).join();
        mark = Math.max(mark, r.getTrimMark());
      } catch (RuntimeException unreachable) {
        LOG.debug("node {}: no log trim mark from {}: {}", self, e, unreachable.toString());
      }
    }
    return mark;
  }
}
