package io.vcorfu.layout;

import io.vcorfu.layout.ChainLostException.ChainKind;
import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Log chains whose every replica was lost, rebuilt from the stream replicas (the paper's recovery
 * of the log from the materialized streams).
 *
 * <p>A log chain is never left empty: when its only serving replica fails, the cluster waits for it
 * (see {@link LayoutChanges#withoutNode}). When that node comes back on a wiped or replaced data
 * directory, its copy is proven gone. Every entry written to a stream is also on the stream
 * replicas of that stream's chain, so {@link #rebuiltFromStreams} turns the node into the
 * rebuilding replica of exactly the log chains it held alone, in the closed segments, and the node
 * copies their entries back from the stream replicas. The current segment is closed first, so no
 * new entry is ever planned on such a chain: its addresses receive only the copy.
 *
 * <p>Invariant: a layout names a log chain with no serving replica only in a closed segment, and
 * then its only member is a node that rebuilds every chain it is in ({@link #fromStreams}). Such a
 * chain serves no reads until the node is promoted, and what the node stores at each of its
 * addresses is what the log held there as far as any surviving replica can tell: the entry a stream
 * replica decided, committed; an entry no stream chain decided yet, undecided as the writer left it
 * (readers decide it as any unfinished write); and, where no stream replica holds anything, a
 * committed {@code LOST} marker that readers get as a {@code DataLossException}: an entry written
 * to no stream (or whose stream chains were lost too) is gone, and nothing else is claimed.
 */
public final class LostLogChains {
  private LostLogChains() {}

  /**
   * True when log chain {@code index} of {@code segment} is being rebuilt from the stream replicas:
   * a closed segment's chain whose only member rebuilds it.
   */
  public static boolean fromStreams(Layout layout, Segment segment, int index) {
    List<Endpoint> chain = segment.log().get(index);
    return !segment.equals(layout.currentSegment())
        && chain.size() == 1
        && layout.rebuildsIn(chain.get(0), segment, true, index);
  }

  /**
   * The log chains {@code node} rebuilds from the stream replicas, as (segment index, chain index)
   * pairs.
   */
  public static List<int[]> rebuiltBy(Layout layout, Endpoint node) {
    List<int[]> out = new ArrayList<>();
    List<Segment> segments = layout.segments();
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      for (int c = 0; c < s.log().size(); c++) {
        if (s.log().get(c).equals(List.of(node)) && fromStreams(layout, s, c)) {
          out.add(new int[] {i, c});
        }
      }
    }
    return out;
  }

  /**
   * How many addresses at or above {@code from} log chain {@code chain} of the closed segment
   * {@code s} holds (address {@code a} is on chain {@code a mod} the segment's log chain count).
   */
  public static long addressesOn(Segment s, int chain, long from) {
    long hi = highestOn(s, chain);
    long lo = Math.max(s.start(), from);
    lo += Math.floorMod(chain - lo, (long) s.log().size());
    return lo > hi ? 0 : (hi - lo) / s.log().size() + 1;
  }

  /** The highest address of log chain {@code chain} of the closed segment {@code s}. */
  public static long highestOn(Segment s, int chain) {
    long last = s.end() - 1;
    return last - Math.floorMod(last - chain, (long) s.log().size());
  }

  /**
   * The log chains whose only serving replica is {@code node}, as (segment index, chain index)
   * pairs: what is lost with its data directory.
   */
  public static List<int[]> heldAlone(Layout layout, Endpoint node) {
    List<int[]> out = new ArrayList<>();
    List<Segment> segments = layout.segments();
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      for (int c = 0; c < s.log().size(); c++) {
        if (layout.serving(s, true, c).equals(List.of(node))) {
          out.add(new int[] {i, c});
        }
      }
    }
    return out;
  }

  /**
   * {@code layout} at the next epoch after {@code node} lost its data directory while it held the
   * only serving replica of some log chains ({@link #heldAlone}):
   *
   * <ul>
   *   <li>the current segment closes at {@code newSegmentStart} (one above the highest global
   *       address any sealed replica holds, log or streams, so that every address an entry of the
   *       lost chains could be at lies below it); in the new segment each of those chains is taken
   *       by the serving node with the fewest places among its log chains, and {@code node} is in
   *       no chain;
   *   <li>in the closed segments {@code node} stays the only member of each of those chains, as a
   *       rebuilding replica ({@link #fromStreams}), and leaves every other chain, as {@link
   *       LayoutChanges#withoutNode} takes a failed node out (a stream chain it held alone is left
   *       empty: its streams are read from the log);
   *   <li>the sequencer moves if it was {@code node}; {@code node}'s incarnation is forgotten (it
   *       claims its new one), and it leaves any drain or replacement.
   * </ul>
   *
   * @throws ChainLostException if a chain {@code node} serves alone also holds a rebuilding replica
   *     (which holds only what was written since it joined), or a stream chain of the current
   *     segment would be left empty while it is the only chain of its segment's kind
   * @throws IllegalArgumentException if {@code node} is not in the layout, holds no chain alone, or
   *     {@code newSegmentStart} is not after the current segment's start
   */
  public static Layout rebuiltFromStreams(Layout layout, Endpoint node, long newSegmentStart) {
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(node, "node");
    if (!layout.allServers().contains(node)) {
      throw new IllegalArgumentException(
          node + " is not in the layout of cluster " + layout.clusterId() + ".");
    }
    List<int[]> alone = heldAlone(layout, node);
    if (alone.isEmpty()) {
      throw new IllegalArgumentException(
          node + " is the only replica of no log chain; it is removed as any failed node.");
    }
    Segment current = layout.currentSegment();
    if (newSegmentStart <= current.start()) {
      throw new IllegalArgumentException(
          "The new segment must start after the current one ("
              + current.start()
              + "), got "
              + newSegmentStart
              + ".");
    }
    List<Segment> segments = new ArrayList<>(layout.segments().size() + 1);
    for (Segment s : layout.segments()) {
      List<List<Endpoint>> log = new ArrayList<>(s.log().size());
      for (int c = 0; c < s.log().size(); c++) {
        List<Endpoint> chain = s.log().get(c);
        if (layout.serving(s, true, c).equals(List.of(node))) {
          if (chain.size() != 1) {
            throw new ChainLostException(node, ChainKind.LOG, c, s.start());
          }
          log.add(chain);
        } else {
          log.add(chain.stream().filter(e -> !e.equals(node)).toList());
        }
      }
      segments.add(new Segment(s.start(), s.end(), log, withoutStreams(layout, s, node)));
    }
    int last = segments.size() - 1;
    Segment closed = segments.get(last);
    segments.set(last, new Segment(closed.start(), newSegmentStart, closed.log(), closed.stream()));
    segments.add(
        new Segment(
            newSegmentStart, Segment.OPEN, taken(layout, closed.log(), node), closed.stream()));

    Endpoint sequencer = NodeRemoval.sequencerWithout(layout, node);
    Map<Endpoint, String> incarnations = new HashMap<>(layout.incarnations());
    incarnations.remove(node);
    Map<Endpoint, Long> rebuilding = new HashMap<>(layout.rebuilding());
    rebuilding.put(node, layout.epoch() + 1);
    Map<Endpoint, Endpoint> replacing = new HashMap<>(layout.replacing());
    replacing.entrySet().removeIf(e -> e.getKey().equals(node) || e.getValue().equals(node));
    Map<Endpoint, JoinedChains> joined = new HashMap<>(layout.rebuildingChains());
    joined.remove(node);
    Map<Integer, Long> since = NodeRemoval.streamSinceOf(layout, segments);
    return new Layout(
        layout.clusterId(),
        layout.epoch() + 1,
        sequencer,
        segments,
        layout.replication(),
        layout.removed(),
        incarnations,
        rebuilding,
        layout.spares(),
        layout.retired(),
        replacing,
        since,
        layout.streamSplits(),
        joined,
        layout.draining().stream().filter(e -> !e.equals(node)).toList());
  }

  /** {@code s}'s stream chains without {@code node}; a chain it held alone is left empty. */
  private static List<List<Endpoint>> withoutStreams(Layout layout, Segment s, Endpoint node) {
    List<List<Endpoint>> out = new ArrayList<>(s.stream().size());
    for (int c = 0; c < s.stream().size(); c++) {
      List<Endpoint> chain = s.stream().get(c);
      if (layout.serving(s, false, c).equals(List.of(node)) && chain.size() != 1) {
        throw new ChainLostException(node, ChainKind.STREAM, c, s.start());
      }
      out.add(chain.stream().filter(e -> !e.equals(node)).toList());
    }
    return out;
  }

  /**
   * The new segment's log chains: {@code closed}'s, each chain {@code node} is in without it, and a
   * chain it held alone taken by the serving node with the fewest places among them (ties: the
   * first in document order).
   */
  private static List<List<Endpoint>> taken(
      Layout layout, List<List<Endpoint>> closed, Endpoint node) {
    Map<Endpoint, Integer> places = new java.util.LinkedHashMap<>();
    for (List<Endpoint> chain : closed) {
      for (Endpoint e : chain) {
        if (!e.equals(node) && !layout.rebuildsAll(e)) {
          places.merge(e, 1, Integer::sum);
        }
      }
    }
    if (places.isEmpty()) {
      throw new IllegalArgumentException("no serving node is left to take " + node + "'s chains");
    }
    List<List<Endpoint>> out = new ArrayList<>(closed.size());
    for (List<Endpoint> chain : closed) {
      List<Endpoint> next = chain.stream().filter(e -> !e.equals(node)).toList();
      if (next.isEmpty()) {
        Endpoint fewest = null;
        for (Map.Entry<Endpoint, Integer> e : places.entrySet()) {
          if (fewest == null || e.getValue() < places.get(fewest)) {
            fewest = e.getKey();
          }
        }
        places.merge(fewest, 1, Integer::sum);
        next = List.of(fewest);
      }
      out.add(next);
    }
    return out;
  }
}
