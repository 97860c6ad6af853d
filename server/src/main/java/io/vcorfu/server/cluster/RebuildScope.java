package io.vcorfu.server.cluster;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.StreamPinMsg;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.protocol.proto.StreamTailResponse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides what a {@link Rebuilder} copies against one layout: the streams of this node's rebuilding
 * stream chains with the range of each, and the closed segments' log chains it will join. Below the
 * trim marks the serving replicas hold there is nothing to copy: this replica adopts those marks as
 * it decides.
 *
 * <p>Invariant: this replica takes, for every stream it rebuilds, the highest trim mark and the
 * union of the pins its chain's serving replicas hold, and takes the pins before it lets any trim
 * of those streams in ({@code JoinState.checkTrims}); so it never reads TRIMMED where its chain
 * does not, and no trim passes a pin the chain holds. For the log it takes the lowest trim mark
 * among the members of its own log chains and every hole they keep below their marks, so it never
 * reads TRIMMED at an address its chain has not decided, nor at a hole its chain keeps.
 */
final class RebuildScope {
  private final Endpoint self;
  private final ReplicaStore store;
  private final Layout layout;
  private final ClusterStreamLog log;

  RebuildScope(Endpoint self, ReplicaStore store, Layout layout, ClusterStreamLog log) {
    this.self = self;
    this.store = store;
    this.layout = layout;
    this.log = log;
  }

  /**
   * Takes the log's trim mark and the holes kept below it: the lowest mark among the replicas that
   * serve a log chain with this node (the highest among all log replicas when none answers; the
   * global log is trimmed by prefix everywhere alike, and only below what every stream has
   * trimmed), so below it there is nothing to copy, and this replica reads TRIMMED there as the
   * others do, or a kept hole. Not the highest mark of all: another chain's replica may be trimmed
   * past an address of this node's chains that its chain has not decided yet (an empty address
   * above that chain's tail), which this replica must not take as trimmed.
   */
  void adoptLogTrimMark() {
    long highest = 0;
    long ofChains = Long.MAX_VALUE;
    java.util.SortedSet<Long> kept = new java.util.TreeSet<>();
    Set<Endpoint> peers = chainPeers();
    for (Endpoint e : layout.logServers()) {
      if (e.equals(self) || layout.rebuildsAll(e)) {
        continue;
      }
      try {
        io.vcorfu.protocol.proto.LogTailResponse t = log.ops().logKeptHoles(e).join();
        highest = Math.max(highest, t.getTrimMark());
        if (peers.contains(e)) {
          ofChains = Math.min(ofChains, t.getTrimMark());
        }
        kept.addAll(t.getKeptHolesList());
      } catch (RuntimeException notAnswering) {
        // Another replica's mark will do, or the next round of the log's trim.
      }
    }
    long mark = ofChains != Long.MAX_VALUE ? ofChains : highest;
    if (mark > 0) {
      store.adoptTrimMark(null, mark, -1).join();
      store.logReplica().adoptKeptHoles(kept.stream().mapToLong(Long::longValue).toArray()).join();
    }
  }

  /** The other members of the log chains that name this node, in any segment. */
  private Set<Endpoint> chainPeers() {
    Set<Endpoint> peers = new HashSet<>();
    for (io.vcorfu.layout.Segment s : layout.segments()) {
      for (List<Endpoint> chain : s.log()) {
        if (chain.contains(self)) {
          peers.addAll(chain);
        }
      }
    }
    peers.remove(self);
    return peers;
  }

  /**
   * Every stream whose chain holds this node, with the range to copy: from its trim mark to its
   * tail as the sequencer reports it now (every slot issued before the join is at or below it). The
   * streams are those any serving replica of this node's stream chains knows.
   */
  Map<StreamId, long[]> streamsToCopy() {
    return streams(true);
  }

  /**
   * {@link #streamsToCopy()} without taking the chains' trim marks or pins: for a copy made before
   * the node joins those chains ({@link PreJoinCopy}), which leaves both to the rebuild after the
   * join (a pin taken then could be released while the node is out of the chain, and stay here).
   */
  Map<StreamId, long[]> streamsToCopyBeforeJoining() {
    return streams(false);
  }

  private Map<StreamId, long[]> streams(boolean adopt) {
    Set<Endpoint> sources = new HashSet<>();
    List<List<Endpoint>> chains = layout.currentSegment().stream();
    for (int c = 0; c < chains.size(); c++) {
      if (chains.get(c).contains(self) && layout.rebuildsStream(self, c)) {
        sources.addAll(layout.servingStream(c));
      }
    }
    Map<StreamId, Long> trim = new HashMap<>();
    Map<StreamId, Long> floor = new HashMap<>();
    Map<StreamId, byte[]> anchor = new HashMap<>();
    Map<StreamId, Map<StreamId, Long>> pins = new HashMap<>();
    long since = store.joinedAt();
    for (Endpoint source : sources) {
      StreamTailResponse r = log.ops().streamTail(source, List.of(), true).join();
      for (StreamTailEntry t : r.getTailsList()) {
        StreamId s = StreamId.fromMsg(t.getStream());
        if (layout.rebuildsStream(self, layout.streamChainIndex(s))) {
          if (t.getTrimMark() > trim.getOrDefault(s, 0L) && !t.getTrimAnchor().isEmpty()) {
            anchor.put(s, t.getTrimAnchor().toByteArray()); // the chain head below that mark
          }
          trim.merge(s, Math.max(0, t.getTrimMark()), Math::max);
          floor.merge(s, t.getTrimFloorGlobal(), Math::max);
          for (StreamPinMsg p : t.getPinsList()) {
            pins.computeIfAbsent(s, k -> new HashMap<>())
                .merge(StreamId.fromMsg(p.getPin()), p.getAt(), Math::min);
          }
        }
      }
    }
    if (adopt) {
      // Below the chain's trim mark there is nothing to copy: this replica takes the mark itself.
      trim.forEach(
          (s, mark) -> {
            if (mark > 0) {
              store.adoptTrimMark(s, mark, floor.getOrDefault(s, -1L), anchor.get(s)).join();
            }
          });
      // The chain's pins too, before this replica takes any trim (see JoinState#checkTrims).
      store.streamReplica().adoptPins(pins, since).join();
    }
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
   * The closed segments' log chains this node will join when it is promoted ({@link
   * LayoutChanges#closedLogChainsToCopy}), by segment index in order.
   */
  Map<Integer, Set<Integer>> closedLogChains() {
    Map<Integer, Set<Integer>> logChains = new TreeMap<>();
    for (int[] sc : LayoutChanges.closedLogChainsToCopy(layout, self)) {
      logChains.computeIfAbsent(sc[0], k -> new HashSet<>()).add(sc[1]);
    }
    return logChains;
  }
}
