package io.vcorfu.server.cluster;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.ReplicaStore;
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
 * already holds whole is skipped; otherwise only decisions are installed, and only where the node
 * holds no committed record (see {@link Rebuilder}). Thread-safe: the copy's workers share one.
 */
final class RangeCopy {
  private final ReplicaStore store;
  private final ClusterStreamLog log;
  private final Layout layout;
  private final RebuildRun run;

  RangeCopy(ReplicaStore store, ClusterStreamLog log, Layout layout, RebuildRun run) {
    this.store = store;
    this.log = log;
    this.layout = layout;
    this.run = run;
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

  private void trimHere(StreamId stream, long mark) {
    if (stream == null) {
      store.logReplica().trim(mark).join();
    } else {
      store.streamReplica().trim(stream, mark).join();
    }
  }
}
