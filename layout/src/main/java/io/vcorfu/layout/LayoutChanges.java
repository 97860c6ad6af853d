package io.vcorfu.layout;

import io.vcorfu.layout.ChainLostException.ChainKind;
import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a layout change of cluster mode computes, as pure functions of the old layout: the first
 * layout of a cluster, and the layout without a node the manager removes (docs/cluster.md). They
 * decide nothing and store nothing; the caller commits the result with {@link
 * LayoutStore#compareAndSet}.
 *
 * <p>Invariants of every layout returned:
 *
 * <ul>
 *   <li>It is a valid {@link Layout} (its constructor checked it).
 *   <li>Every segment keeps its number of log chains and of stream chains: a global address {@code
 *       g} goes to log chain {@code g mod (log chains)} and a stream to chain {@code hash mod
 *       (stream chains)}, so no address and no stream ever moves to another chain.
 *   <li>A change only takes members out of chains and keeps the order of the others, so a chain's
 *       survivors still hold, head first, a prefix of what the chain wrote (see docs/cluster.md,
 *       "Chains").
 *   <li>No chain is ever left empty: a change that would empty one fails with {@link
 *       ChainLostException} instead.
 *   <li>A removed node is in no chain of any segment and is not the sequencer; {@link
 *       Layout#removed()} lists it, in the order of removal.
 *   <li>The epoch grows by exactly one per change.
 * </ul>
 */
public final class LayoutChanges {
  private LayoutChanges() {}

  /**
   * The first layout of a cluster of {@code nodes} with replication factor {@code replication} (R):
   * epoch 1, {@code nodes[0]} is the sequencer, and one open segment from address 0 with N = {@code
   * nodes.size()} log chains and N stream chains, chain {@code i} of each kind being the R nodes
   * from {@code nodes[i]} on, wrapping around. So every chain has R replicas and every node heads
   * exactly one log chain and one stream chain.
   *
   * @throws IllegalArgumentException if {@code nodes} is empty, contains null or the same node
   *     twice, or R is not between 1 and N
   */
  public static Layout initial(String clusterId, List<Endpoint> nodes, int replication) {
    Objects.requireNonNull(nodes, "nodes");
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("A cluster needs at least one node; the list is empty.");
    }
    Set<Endpoint> distinct = new HashSet<>();
    for (Endpoint node : nodes) {
      if (node == null) {
        throw new IllegalArgumentException("The list of nodes contains a null endpoint.");
      }
      if (!distinct.add(node)) {
        throw new IllegalArgumentException("The list of nodes names " + node + " more than once.");
      }
    }
    int n = nodes.size();
    if (replication < 1 || replication > n) {
      throw new IllegalArgumentException(
          "The replication factor must be between 1 and the number of nodes ("
              + n
              + "), got "
              + replication
              + ".");
    }
    List<List<Endpoint>> chains = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      List<Endpoint> chain = new ArrayList<>(replication);
      for (int k = 0; k < replication; k++) {
        chain.add(nodes.get((i + k) % n));
      }
      chains.add(chain);
    }
    return new Layout(
        clusterId,
        1,
        nodes.get(0),
        List.of(new Segment(0, Segment.OPEN, chains, chains)),
        replication,
        List.of());
  }

  /**
   * {@code layout} without {@code dead}, at the next epoch.
   *
   * <ul>
   *   <li>{@code dead} leaves every chain of every segment; the other members keep their order.
   *   <li>If {@code newSegmentStart} is after the start of the current (open) segment, that segment
   *       closes at {@code newSegmentStart} (exclusive) and a new open segment starts there with
   *       the same, reduced, chains; otherwise the current segment is changed in place.
   *   <li>If {@code dead} was the sequencer, the new sequencer is the first node of {@link
   *       Layout#allServers()} other than {@code dead}: the first surviving replica in document
   *       order (oldest segment first, log chains before stream chains, each chain head first).
   *   <li>{@code dead} is appended to {@link Layout#removed()} and its incarnation forgotten;
   *       replication and the other nodes' incarnations are kept.
   * </ul>
   *
   * @param newSegmentStart the first global address the new chains alone serve: one above the
   *     highest log tail among the sealed log replicas
   * @throws ChainLostException if some chain consists of {@code dead} alone (its only copy)
   * @throws IllegalArgumentException if {@code dead} is not in the layout (as sequencer or in a
   *     chain) or {@code newSegmentStart} is negative
   */
  public static Layout withoutNode(Layout layout, Endpoint dead, long newSegmentStart) {
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
              without(s.log(), dead, ChainKind.LOG, s.start()),
              without(s.stream(), dead, ChainKind.STREAM, s.start())));
    }
    int last = segments.size() - 1;
    Segment current = segments.get(last);
    if (newSegmentStart > current.start()) {
      segments.set(
          last, new Segment(current.start(), newSegmentStart, current.log(), current.stream()));
      segments.add(new Segment(newSegmentStart, Segment.OPEN, current.log(), current.stream()));
    }
    Endpoint sequencer = layout.sequencer();
    if (sequencer.equals(dead)) {
      sequencer =
          layout.allServers().stream()
              .filter(e -> !e.equals(dead))
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("no node survives " + dead));
    }
    List<Endpoint> removed = new ArrayList<>(layout.removed());
    removed.add(dead);
    Map<Endpoint, String> incarnations = new HashMap<>(layout.incarnations());
    incarnations.remove(dead);
    return new Layout(
        layout.clusterId(),
        layout.epoch() + 1,
        sequencer,
        segments,
        layout.replication(),
        removed,
        incarnations);
  }

  /**
   * The same layout at the next epoch: what a sequencer that finds itself the sequencer of the
   * agreed layout commits before it issues a token, so that tokens it issued before a crash can
   * never be written.
   */
  public static Layout nextEpoch(Layout layout) {
    return layout.withEpoch(layout.epoch() + 1);
  }

  private static List<List<Endpoint>> without(
      List<List<Endpoint>> chains, Endpoint dead, ChainKind kind, long segmentStart) {
    List<List<Endpoint>> out = new ArrayList<>(chains.size());
    for (int c = 0; c < chains.size(); c++) {
      List<Endpoint> chain = chains.get(c);
      if (chain.size() == 1 && chain.get(0).equals(dead)) {
        throw new ChainLostException(dead, kind, c, segmentStart);
      }
      out.add(chain.stream().filter(e -> !e.equals(dead)).toList());
    }
    return out;
  }
}
