package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.protocol.proto.StreamTailRequest;
import io.vcorfu.protocol.proto.StreamTailResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reclaims what a node still holds of chains it has left (a stream chain split off as the cluster
 * grew, chains it served before it failed and came back elsewhere, the log after it left every log
 * chain): nothing trims those copies any more, since trims go to a chain's members. Each pass
 * takes, for every stream this node holds whose chain in its adopted layout does not name it, the
 * trim mark a serving replica of that chain holds; and, when this node is in no log chain, the
 * log's trim mark from a log replica. What falls below the marks is then reclaimed by compaction,
 * and what the chain trims later follows at the next pass.
 *
 * <p>Invariant: every mark taken here is one a serving replica of the chain holds (marks only rise
 * there), so this node never reads TRIMMED where its chain does not: if a later layout gives it a
 * place in the chain again, its marks are at most the chain's, as a rebuilding replica's are (the
 * rebuild takes the chain's marks and copies what lies above them). A chain with no serving replica
 * is left alone.
 *
 * <p>Runs on one daemon thread, every {@link #EVERY}.
 */
public final class LeftChainTrims implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeftChainTrims.class);

  /** How often this node looks for copies of chains it has left. */
  static final Duration EVERY = Duration.ofSeconds(10);

  private final Endpoint self;
  private final ReplicaStore store;
  private final Supplier<Layout> layout;
  private final NodeCalls calls;
  private final ScheduledExecutorService timer;
  private final java.util.concurrent.atomic.AtomicLong passes =
      new java.util.concurrent.atomic.AtomicLong();

  private LeftChainTrims(
      Endpoint self,
      ReplicaStore store,
      Supplier<Layout> layout,
      NodeCalls calls,
      ScheduledExecutorService timer) {
    this.self = self;
    this.store = store;
    this.layout = layout;
    this.calls = calls;
    this.timer = timer;
  }

  /** Starts the passes of {@code self}'s store (see the class comment). */
  public static LeftChainTrims start(
      Endpoint self, ReplicaStore store, Supplier<Layout> layout, NodeCalls calls) {
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(Rebuilder.daemon("vcorfu-left-chains"));
    LeftChainTrims t = new LeftChainTrims(self, store, layout, calls, timer);
    long every = EVERY.toMillis();
    timer.scheduleWithFixedDelay(t::tick, every, every, TimeUnit.MILLISECONDS);
    return t;
  }

  /** A pass-maker without a timer, for tests. */
  static LeftChainTrims manual(
      Endpoint self, ReplicaStore store, Supplier<Layout> layout, NodeCalls calls) {
    return new LeftChainTrims(self, store, layout, calls, null);
  }

  private void tick() {
    try {
      runOnce();
    } catch (RuntimeException e) {
      LOG.debug("reclaiming copies of left chains failed; tried again later", e);
    }
  }

  /** How many passes have begun, the timer's and {@link #runOnce()}'s. */
  public long passesBegun() {
    return passes.get();
  }

  /** One pass; returns how many marks (streams, and the log) it raised here. */
  public int runOnce() {
    passes.incrementAndGet();
    Layout l = layout.get();
    if (l == null || l.currentSegment() == null) {
      return 0;
    }
    int raised = 0;
    StreamTailResponse mine =
        store.streamReplica().tail(StreamTailRequest.newBuilder().setAll(true).build()).join();
    Map<Integer, List<StreamTailEntry>> leftByChain = new HashMap<>();
    List<List<Endpoint>> chains = l.currentSegment().stream();
    for (StreamTailEntry t : mine.getTailsList()) {
      StreamId s = StreamId.fromMsg(t.getStream());
      int chain = l.streamChainIndex(s);
      if (!chains.get(chain).contains(self)) {
        leftByChain.computeIfAbsent(chain, c -> new ArrayList<>()).add(t);
      }
    }
    for (Map.Entry<Integer, List<StreamTailEntry>> e : leftByChain.entrySet()) {
      List<Endpoint> serving = l.servingStream(e.getKey());
      if (serving.isEmpty()) {
        continue;
      }
      StreamTailResponse theirs;
      try {
        theirs = calls.streamMarks(serving.get(serving.size() - 1), l.epoch()).join();
      } catch (RuntimeException notAnswering) {
        continue; // the next pass asks again
      }
      Map<StreamId, StreamTailEntry> byStream = new HashMap<>();
      theirs.getTailsList().forEach(t -> byStream.put(StreamId.fromMsg(t.getStream()), t));
      for (StreamTailEntry held : e.getValue()) {
        StreamId s = StreamId.fromMsg(held.getStream());
        StreamTailEntry chain = byStream.get(s);
        if (chain != null && chain.getTrimMark() > held.getTrimMark()) {
          store
              .adoptTrimMark(
                  s,
                  chain.getTrimMark(),
                  chain.getTrimFloorGlobal(),
                  chain.getTrimAnchor().isEmpty() ? null : chain.getTrimAnchor().toByteArray())
              .join();
          raised++;
        }
      }
    }
    if (!l.logServers().contains(self)) {
      long mark = 0;
      for (Endpoint e : l.logServers()) {
        if (l.rebuildsAll(e)) {
          continue;
        }
        try {
          mark = Math.max(mark, calls.logTrimMark(e, l.epoch()).join());
        } catch (RuntimeException notAnswering) {
          // another log replica's mark will do
        }
      }
      if (mark > store.logTailAndTrimMark()[1]) {
        store.adoptTrimMark(null, mark, -1).join();
        raised++;
      }
    }
    if (raised > 0) {
      LOG.info(
          "took {} trim mark(s) of chains this node has left; compaction reclaims below", raised);
    }
    return raised;
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
