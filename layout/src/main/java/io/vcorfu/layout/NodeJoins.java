package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The steps by which a node takes places in chains at a layout change: it joins chains at the head
 * (as a rebuilding replica, which decides nothing, or as the only replica of an empty stream
 * chain), the current segment closes so that the new chains alone serve the addresses written from
 * the new epoch on, and the layout of the next epoch records the node's new role. Chains keep the
 * order of their other members, so each chain's decider stays the same.
 */
final class NodeJoins {
  private NodeJoins() {}

  /** A rebuilding replica restoring R, as {@link LayoutChanges#withRebuilding} describes. */
  static Layout withRebuilding(Layout layout, Endpoint node, long newSegmentStart) {
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(node, "node");
    if (layout.allServers().contains(node)) {
      throw new IllegalArgumentException(
          node + " is in the layout of epoch " + layout.epoch() + " already.");
    }
    if (layout.replication() < 1) {
      throw new IllegalArgumentException("The layout sets no replication factor to restore.");
    }
    if (LayoutChanges.underReplicated(layout).size()
        == LayoutChanges.emptyStreamChains(layout).size()) {
      throw new IllegalArgumentException(
          "Every chain of the current segment that has a replica has its "
              + layout.replication()
              + " replicas; there is nothing for "
              + node
              + " to restore.");
    }
    List<Segment> segments = new ArrayList<>(layout.segments());
    Segment current = layout.currentSegment();
    opened(
        segments,
        newSegmentStart,
        atHead(current.log(), node, layout.replication(), null),
        atHead(current.stream(), node, layout.replication(), null));
    return joining(layout, node, segments, true, null, layout.streamSince(), layout.streamSplits());
  }

  /** Refuses {@code what} while a node is being drained onto the other nodes. */
  static void checkNoDrain(Layout layout, String what) {
    if (!layout.draining().isEmpty()) {
      throw new IllegalArgumentException(
          "Nodes "
              + layout.draining()
              + " are being drained onto the other nodes; "
              + what
              + " after they have left.");
    }
  }

  /** A node taking up empty stream chains, as {@link LayoutChanges#withTakeover} describes. */
  static Layout withTakeover(Layout layout, Endpoint node, long newSegmentStart) {
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(node, "node");
    if (layout.allServers().contains(node)) {
      throw new IllegalArgumentException(
          node + " is in the layout of epoch " + layout.epoch() + " already.");
    }
    Segment current = layout.currentSegment();
    List<List<Endpoint>> stream = new ArrayList<>(current.stream());
    Map<Integer, Long> since = new HashMap<>(layout.streamSince());
    for (int c = 0; c < stream.size(); c++) {
      if (stream.get(c).isEmpty()) {
        stream.set(c, List.of(node));
        since.put(c, layout.epoch() + 1);
      }
    }
    if (since.equals(layout.streamSince())) {
      throw new IllegalArgumentException(
          "No stream chain of the current segment of epoch " + layout.epoch() + " is empty.");
    }
    List<Segment> segments = new ArrayList<>(layout.segments());
    opened(segments, newSegmentStart, current.log(), stream);
    return joining(layout, node, segments, false, null, since, layout.streamSplits());
  }

  /** A drain onto a new node, as {@link LayoutChanges#withReplacement} describes. */
  static Layout withReplacement(Layout layout, Endpoint old, Endpoint node, long newSegmentStart) {
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(old, "old");
    Objects.requireNonNull(node, "node");
    int r = layout.replication();
    if (r < 1) {
      throw new IllegalArgumentException("The layout sets no replication factor.");
    }
    if (layout.allServers().contains(node)) {
      throw new IllegalArgumentException(
          node + " is in the layout of epoch " + layout.epoch() + " already.");
    }
    Segment current = layout.currentSegment();
    boolean holds =
        current.log().stream().anyMatch(c -> c.contains(old))
            || current.stream().stream().anyMatch(c -> c.contains(old));
    if (!holds || layout.isRebuilding(old)) {
      throw new IllegalArgumentException(
          old
              + " holds no serving place in the current segment of epoch "
              + layout.epoch()
              + "; there is nothing to hand over.");
    }
    if (!layout.rebuilding().isEmpty()) {
      throw new IllegalArgumentException(
          "Replicas "
              + layout.rebuilding().keySet()
              + " are rebuilding; a node is replaced after they are promoted.");
    }
    checkNoDrain(layout, "a node is replaced");
    List<Segment> segments = new ArrayList<>(layout.segments());
    opened(
        segments,
        newSegmentStart,
        atHead(current.log(), node, r, old),
        atHead(current.stream(), node, r, old));
    return joining(layout, node, segments, true, old, layout.streamSince(), layout.streamSplits());
  }

  /**
   * {@code layout} at the next epoch with {@code segments}, in which {@code node} has taken places:
   * it leaves the removed, spare and retired nodes, its incarnation is forgotten (it claims its
   * place again), with {@code rebuilding} it is listed rebuilding from the new epoch, with a {@code
   * replaces} node it is listed as that node's replacement, and the stream chains take part in
   * plans from the epochs {@code streamSince} says.
   */
  static Layout joining(
      Layout layout,
      Endpoint node,
      List<Segment> segments,
      boolean rebuilding,
      Endpoint replaces,
      Map<Integer, Long> streamSince,
      int streamSplits) {
    long epoch = layout.epoch() + 1;
    List<Endpoint> removed = new ArrayList<>(layout.removed());
    removed.remove(node);
    List<Endpoint> spares = new ArrayList<>(layout.spares());
    spares.remove(node);
    Map<Endpoint, String> incarnations = new HashMap<>(layout.incarnations());
    incarnations.remove(node);
    Map<Endpoint, Long> joined = new HashMap<>(layout.rebuilding());
    if (rebuilding) {
      joined.put(node, epoch);
    }
    List<Endpoint> retired = new ArrayList<>(layout.retired());
    retired.remove(node);
    Map<Endpoint, Endpoint> replacing = new HashMap<>(layout.replacing());
    if (replaces != null) {
      replacing.put(node, replaces);
    }
    return new Layout(
        layout.clusterId(),
        epoch,
        layout.sequencer(),
        segments,
        layout.replication(),
        removed,
        incarnations,
        joined,
        spares,
        retired,
        replacing,
        streamSince,
        streamSplits,
        layout.rebuildingChains(),
        layout.draining());
  }

  /**
   * Replaces the last (open) segment of {@code segments} by one with {@code log} and {@code stream}
   * chains: closing it at {@code newSegmentStart} and opening a new one there when that is after
   * its start, else in place (nothing was written in it).
   */
  static void opened(
      List<Segment> segments,
      long newSegmentStart,
      List<List<Endpoint>> log,
      List<List<Endpoint>> stream) {
    int last = segments.size() - 1;
    Segment current = segments.get(last);
    if (newSegmentStart > current.start()) {
      segments.set(
          last, new Segment(current.start(), newSegmentStart, current.log(), current.stream()));
      segments.add(new Segment(newSegmentStart, Segment.OPEN, log, stream));
    } else {
      segments.set(last, new Segment(current.start(), Segment.OPEN, log, stream));
    }
  }

  /**
   * {@code chains} with {@code node} at the head of every chain that lacks it and either holds
   * {@code old} (a drain; null for none) or has replicas but fewer than {@code replication}. An
   * empty stream chain is taken up by {@link LayoutChanges#withTakeover}, never by a rebuilding
   * replica.
   */
  private static List<List<Endpoint>> atHead(
      List<List<Endpoint>> chains, Endpoint node, int replication, Endpoint old) {
    List<List<Endpoint>> out = new ArrayList<>(chains.size());
    for (List<Endpoint> chain : chains) {
      boolean lacking = !chain.isEmpty() && chain.size() < replication;
      boolean takes = lacking || (old != null && chain.contains(old));
      if (takes && !chain.contains(node)) {
        List<Endpoint> next = new ArrayList<>(chain.size() + 1);
        next.add(node);
        next.addAll(chain);
        out.add(next);
      } else {
        out.add(chain);
      }
    }
    return out;
  }
}
