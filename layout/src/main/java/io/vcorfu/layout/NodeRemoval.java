package io.vcorfu.layout;

import io.vcorfu.layout.ChainLostException.ChainKind;
import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Takes a node out of a layout ({@link LayoutChanges#withoutNode}): it leaves every chain of every
 * segment, the other members keep their order, and the sequencer role and the healing and draining
 * records let go of it.
 *
 * <p>Keeps these invariants of {@link LayoutChanges}: a chain only loses members, so its survivors
 * still hold, head first, a prefix of what it wrote; no log chain is left empty (a change that
 * would empty one fails with {@link ChainLostException}), only a stream chain whose last replica
 * goes, whose streams the log then serves; the removed node is in no chain and is not the
 * sequencer, and is listed last in {@link Layout#removed()}; the epoch grows by exactly one.
 */
final class NodeRemoval {
  private NodeRemoval() {}

  /** {@code layout} without {@code dead}, as {@link LayoutChanges#withoutNode} describes. */
  static Layout withoutNode(Layout layout, Endpoint dead, long newSegmentStart) {
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(dead, "dead");
    if (!layout.allServers().contains(dead)) {
      throw new IllegalArgumentException(
          dead
              + " is not in the layout of cluster "
              + layout.clusterId()
              + " at epoch "
              + layout.epoch()
              + (layout.removed().contains(dead) ? " (it was removed at an earlier epoch)." : "."));
    }
    if (newSegmentStart < 0) {
      throw new IllegalArgumentException(
          "The new segment start must not be negative, got " + newSegmentStart + ".");
    }
    List<Segment> segments = new ArrayList<>(layout.segments().size() + 1);
    for (Segment s : layout.segments()) {
      segments.add(
          new Segment(
              s.start(),
              s.end(),
              without(layout, s, dead, ChainKind.LOG),
              without(layout, s, dead, ChainKind.STREAM)));
    }
    int last = segments.size() - 1;
    Segment current = segments.get(last);
    if (newSegmentStart > current.start()) {
      segments.set(
          last, new Segment(current.start(), newSegmentStart, current.log(), current.stream()));
      segments.add(new Segment(newSegmentStart, Segment.OPEN, current.log(), current.stream()));
    }
    Endpoint sequencer = sequencerWithout(layout, dead);
    List<Endpoint> removed = new ArrayList<>(layout.removed());
    removed.add(dead);
    Map<Endpoint, String> incarnations = new HashMap<>(layout.incarnations());
    incarnations.remove(dead);
    Map<Endpoint, Long> rebuilding = new HashMap<>(layout.rebuilding());
    rebuilding.remove(dead);
    // A node that was leaving on request and fails meanwhile has left on request all the same.
    List<Endpoint> retired = new ArrayList<>(layout.retired());
    if (layout.draining().contains(dead)) {
      retired.add(dead);
    }
    // A drain ends with either side gone: without the replacement the old node stays; without the
    // old node its replacement restores the chains it left short, as any rebuilding replica does.
    Map<Endpoint, Endpoint> replacing = new HashMap<>(layout.replacing());
    replacing.entrySet().removeIf(e -> e.getKey().equals(dead) || e.getValue().equals(dead));
    // A member that was to take only closed-segment places of the dead node has nothing left to do.
    Map<Endpoint, JoinedChains> joined = without(layout.rebuildingChains(), dead);
    joined
        .entrySet()
        .removeIf(
            e ->
                e.getValue().log().isEmpty()
                    && e.getValue().stream().isEmpty()
                    && !replacing.containsKey(e.getKey())
                    && rebuilding.remove(e.getKey()) != null);
    Map<Integer, Long> since = streamSinceOf(layout, segments);
    return new Layout(
        layout.clusterId(),
        layout.epoch() + 1,
        sequencer,
        segments,
        layout.replication(),
        removed,
        incarnations,
        rebuilding,
        layout.spares(),
        retired,
        replacing,
        since,
        layout.streamSplits(),
        joined,
        layout.draining().stream().filter(e -> !e.equals(dead)).toList());
  }

  /**
   * The sequencer of {@code layout} once {@code dead} is gone: the same one, or when it was {@code
   * dead} the first serving node that survives it.
   */
  static Endpoint sequencerWithout(Layout layout, Endpoint dead) {
    if (!layout.sequencer().equals(dead)) {
      return layout.sequencer();
    }
    return layout.allServers().stream()
        .filter(e -> !e.equals(dead) && !layout.isRebuilding(e))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no node survives " + dead));
  }

  /**
   * {@code layout}'s taken-up stream chains ({@link Layout#streamSince()}) that still have a
   * replica in the last of {@code segments}: a stream chain left empty takes part in no plan until
   * it is taken up again.
   */
  static Map<Integer, Long> streamSinceOf(Layout layout, List<Segment> segments) {
    Map<Integer, Long> since = new HashMap<>(layout.streamSince());
    List<List<Endpoint>> stream = segments.get(segments.size() - 1).stream();
    since.keySet().removeIf(c -> stream.get(c).isEmpty());
    return since;
  }

  /** {@code map} without {@code key}. */
  static <V> Map<Endpoint, V> without(Map<Endpoint, V> map, Endpoint key) {
    Map<Endpoint, V> out = new HashMap<>(map);
    out.remove(key);
    return out;
  }

  /**
   * The {@code kind} chains of {@code segment} without {@code dead}, the others in their order; a
   * chain whose only serving replica is {@code dead} fails the change, but for a stream chain's
   * last replica, which leaves the chain empty.
   *
   * @throws ChainLostException if {@code dead} holds the only copy of some chain's entries
   */
  private static List<List<Endpoint>> without(
      Layout layout, Segment segment, Endpoint dead, ChainKind kind) {
    boolean isLog = kind == ChainKind.LOG;
    List<List<Endpoint>> chains = isLog ? segment.log() : segment.stream();
    long segmentStart = segment.start();
    List<List<Endpoint>> out = new ArrayList<>(chains.size());
    for (int c = 0; c < chains.size(); c++) {
      List<Endpoint> chain = chains.get(c);
      List<Endpoint> serving = layout.serving(segment, isLog, c);
      if (serving.size() == 1 && serving.get(0).equals(dead)) {
        if (kind == ChainKind.STREAM && chain.size() == 1 && layout.replication() > 0) {
          // A stream chain's last replica: every entry of its streams is in the log too, which
          // decides them from now on (degraded mode) until a node takes the chain up again.
          out.add(List.of());
          continue;
        }
        // Its only serving replica: a rebuilding one holds only what was written since it joined,
        // and a log chain's entries are nowhere else in order.
        throw new ChainLostException(dead, kind, c, segmentStart);
      }
      out.add(chain.stream().filter(e -> !e.equals(dead)).toList());
    }
    return out;
  }
}
