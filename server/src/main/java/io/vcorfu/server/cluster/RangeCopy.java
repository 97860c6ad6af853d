package io.vcorfu.server.cluster;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * Copies one range of one stream, or of the closed log chains of one segment, from the chains'
 * deciders to this node's replica for a {@link Rebuilder}, a page at a time, counting it in the
 * copy's {@link RebuildRun} and pacing it by the run's {@link RebuildPacer}. A page this node
 * already holds whole is skipped; otherwise it installs what the invariant allows.
 *
 * <p>Invariant: only decisions are installed, only where the node holds no committed record (see
 * {@link Rebuilder}), and only copies whose bytes match the digest their source stored (a refused
 * one is taken from another serving replica, or the copy stops). Thread-safe: the copy's workers
 * share one.
 */
final class RangeCopy {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RangeCopy.class);
  private final ReplicaStore store;
  private final ClusterStreamLog log;
  private final Layout layout;
  private final RebuildRun run;
  private final Endpoint self;

  RangeCopy(
      ReplicaStore store, ClusterStreamLog log, Layout layout, RebuildRun run, Endpoint self) {
    this.store = store;
    this.log = log;
    this.layout = layout;
    this.run = run;
    this.self = self;
  }

  /**
   * Copies {@code [from, to]} of {@code stream} (the global log when null; then only addresses of
   * the log chains {@code chains} of a segment with {@code chainCount} chains), a page at a time.
   */
  void copy(StreamId stream, long from, long to, Set<Integer> chains, int chainCount)
      throws InterruptedException {
    LongPredicate counted =
        chains == null ? x -> true : x -> chains.contains((int) (x % chainCount));
    long a = from;
    long pageSlots = Rebuilder.FIRST_PAGE;
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
                ? DecidedLogPage.read(log, layout, a, end, chains, chainCount)
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
      pageSlots = Rebuilder.nextPageSlots(end - a + 1, pageBytes);
      List<Long> refused = new ArrayList<>();
      long bytes = store.install(stream, mine, refused).join();
      for (long at : refused) {
        bytes += fromAnotherReplica(stream, at);
      }
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
   * Copies {@code address} of {@code stream} (the log when null) from the first other serving
   * replica of its chain whose copy matches the digest it stored, after the one read first did not
   * (see {@link ReplicaStore#install(StreamId, List, List)}); returns the bytes installed. Fails,
   * naming the address, when no replica holds a copy that matches its digest: the rebuild stops
   * rather than take in a damaged entry.
   */
  private long fromAnotherReplica(StreamId stream, long address) {
    List<Endpoint> serving =
        stream == null
            ? layout.servingLog(address)
            : layout.servingStream(layout.streamChainIndex(stream));
    for (Endpoint other : serving) {
      if (other.equals(self)) {
        continue;
      }
      List<ReadResult> copy;
      try {
        copy =
            stream == null
                ? log.ops().logRead(other, address, address).join()
                : log.ops().streamRead(other, stream, address, address).join();
      } catch (RuntimeException notAnswering) {
        continue;
      }
      List<ReadResult> decided = new ArrayList<>();
      for (ReadResult r : copy) {
        if (r.getStatus() == ReadResult.Status.COMMITTED) {
          decided.add(r.toBuilder().setAddress(address).build());
        }
      }
      List<Long> refused = new ArrayList<>();
      long bytes = decided.isEmpty() ? 0 : store.install(stream, decided, refused).join();
      if (!decided.isEmpty() && refused.isEmpty()) {
        LOG.warn(
            "Copied {} address {} from {}: the first replica read held a copy that does not"
                + " match its digest",
            stream == null ? "the log's" : "stream " + stream + "'s",
            address,
            other);
        return bytes;
      }
    }
    throw new io.vcorfu.protocol.ServerErrorException(
        "No replica of "
            + (stream == null ? "the log" : "stream " + stream)
            + " holds a copy of address "
            + address
            + " that matches the digest it stored; the rebuild does not copy a damaged entry"
            + " (vcorfu log verify names the replicas that hold one)");
  }

  private void trimHere(StreamId stream, long mark) {
    if (stream == null) {
      store.logReplica().trim(mark).join();
    } else {
      store.streamReplica().trim(stream, mark).join();
    }
  }
}
