package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.List;

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
 *
 * <p>These functions check their arguments and hand the work to a class of one job each: {@link
 * InitialLayouts} (the first layout), {@link NodeRemoval} (a node taken out), {@link NodeJoins} (a
 * node joining chains), {@link Growth} (a new node taking a share) and {@link Promotion} (a
 * rebuilding replica promoted).
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
    return initial(clusterId, nodes, replication, nodes == null ? 0 : nodes.size());
  }

  /**
   * The first layout as {@link #initial(String, List, int)} says, but with {@code streamChains}
   * stream chains: chain {@code i} is the R nodes from {@code nodes[i mod N]} on. Streams are
   * placed over the stream chains for the cluster's life; a cluster that will grow needs more
   * stream chains than nodes for its new nodes to take a share of the streams (see {@link
   * #withGrowth}): up to {@code streamChains * R} nodes hold stream replicas.
   *
   * @throws IllegalArgumentException as {@link #initial(String, List, int)}, or if {@code
   *     streamChains} is below 1
   */
  public static Layout initial(
      String clusterId, List<Endpoint> nodes, int replication, int streamChains) {
    return InitialLayouts.initial(clusterId, nodes, replication, streamChains);
  }

  /**
   * The first layout of a cluster whose log and stream replicas are on different nodes: log chains
   * striped over {@code logNodes} (chain {@code i} the R nodes from {@code logNodes[i]} on, so as
   * many log chains as log nodes), {@code streamChains} stream chains striped the same way over
   * {@code streamNodes}; {@code logNodes[0]} is the sequencer. A stream chain that loses every
   * replica then leaves the log chains intact, and the log serves its streams (degraded mode).
   *
   * @throws IllegalArgumentException as {@link #initial(String, List, int, int)}, if a node is in
   *     both lists, or R is more than the nodes of either list
   */
  public static Layout initial(
      String clusterId,
      List<Endpoint> logNodes,
      List<Endpoint> streamNodes,
      int replication,
      int streamChains) {
    return InitialLayouts.initial(clusterId, logNodes, streamNodes, replication, streamChains);
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
    return NodeRemoval.withoutNode(layout, dead, newSegmentStart);
  }

  /**
   * {@code layout} at the next epoch with {@code node} joined, as a <em>rebuilding</em> replica, to
   * every chain of the current segment that has fewer than R replicas and does not hold it already;
   * it is put at the head of each, so it takes every write from the new epoch on and never decides.
   * The current segment closes at {@code newSegmentStart} (as in {@link #withoutNode}), so the node
   * holds a place only in chains of addresses written from the new epoch on; what the chains hold
   * from before is copied to it and a later {@link #promoted} change makes it a full member. The
   * node leaves {@link Layout#removed()} and {@link Layout#spares()}; its incarnation is forgotten
   * (it claims its place again).
   *
   * @throws IllegalArgumentException if the node is in a chain or is the sequencer already, the
   *     layout sets no replication factor, or no chain of the current segment lacks a replica
   */
  public static Layout withRebuilding(Layout layout, Endpoint node, long newSegmentStart) {
    return NodeJoins.withRebuilding(layout, node, newSegmentStart);
  }

  /**
   * {@code layout} at the next epoch with {@code node}, a node in no chain (a spare, or a removed
   * node that answers again), as the only replica of every empty stream chain of the current
   * segment, each marked taken up at the new epoch ({@link Layout#streamChainSince}): the chain
   * takes part in the plans of entries of that epoch on, and the node decides them from the start;
   * entries of older epochs stay decided by the log. Before the node serves reads of those chains'
   * streams it copies their older entries from the log (one pass over the log by pages, every page
   * decided), keeping the committed records it holds. The current segment closes at {@code
   * newSegmentStart} (as in {@link #withoutNode}). The node leaves the spares, removed and retired
   * nodes; its incarnation is forgotten (it claims its place again).
   *
   * @throws IllegalArgumentException if the node is in the layout already or no stream chain of the
   *     current segment is empty
   */
  public static Layout withTakeover(Layout layout, Endpoint node, long newSegmentStart) {
    return NodeJoins.withTakeover(layout, node, newSegmentStart);
  }

  /** The indexes of the current segment's empty stream chains (every replica they had is gone). */
  public static List<Integer> emptyStreamChains(Layout layout) {
    List<Integer> out = new ArrayList<>();
    List<List<Endpoint>> stream = layout.currentSegment().stream();
    for (int c = 0; c < stream.size(); c++) {
      if (stream.get(c).isEmpty()) {
        out.add(c);
      }
    }
    return out;
  }

  /**
   * A drain: {@code layout} at the next epoch with {@code node} joined, as a <em>rebuilding</em>
   * replica, at the head of every chain of the current segment that holds {@code old} (such a chain
   * holds R + 1 replicas for a while) and of every chain that lacks a replica, and recorded as
   * {@code old}'s replacement ({@link Layout#replacing()}). {@code old} keeps serving: every chain
   * keeps the replicas it had. The node copies what those chains hold, and what the closed
   * segments' chains holding {@code old} hold ({@link #closedLogChainsToCopy}), as any rebuilding
   * replica does; {@link #promoted(Layout, Endpoint, long)} then puts it in {@code old}'s place in
   * every chain of every segment and takes {@code old} out of the layout in the same change. So no
   * chain ever has fewer serving replicas than before. The current segment closes at {@code
   * newSegmentStart} (as in {@link #withoutNode}).
   *
   * @throws IllegalArgumentException if the layout sets no replication factor, {@code node} is in
   *     the layout already, {@code old} is in no chain of the current segment or is rebuilding, or
   *     a replica is rebuilding already or a node is draining (one change of membership at a time)
   */
  public static Layout withReplacement(
      Layout layout, Endpoint old, Endpoint node, long newSegmentStart) {
    return NodeJoins.withReplacement(layout, old, node, newSegmentStart);
  }

  /**
   * {@code layout} at the next epoch with the rebuilding replica {@code node} promoted: it is no
   * longer rebuilding, and it joins, at the head, every chain of the closed segments that has fewer
   * than R replicas and lacks it (their entries were copied to it). Chains keep their order
   * otherwise, so the decider of every chain stays the same.
   *
   * @throws IllegalArgumentException if {@code node} is not rebuilding
   */
  public static Layout promoted(Layout layout, Endpoint node) {
    if (layout.rebuildsAll(node)
        && layout.currentSegment().log().stream().noneMatch(c -> c.contains(node))) {
      throw new IllegalArgumentException(
          node
              + " joined to grow the cluster: its promotion stripes the log again and needs the"
              + " new segment's start.");
    }
    return promoted(layout, node, 0);
  }

  /**
   * {@code layout} at the next epoch with the rebuilding replica {@code node} promoted, as {@link
   * #promoted(Layout, Endpoint)} says, and, when it joined to grow the cluster ({@link
   * #withGrowth}), the growth finished in the same change:
   *
   * <ul>
   *   <li>every chain that holds more than R replicas (of the current segment, or of a segment
   *       opened while the node copied, whose chains list it too) loses one member other than
   *       {@code node}: the one with the most places among that segment's chains of that kind
   *       (ties: the one nearer the chain's end). The others keep their order; what the chain wrote
   *       is still on its survivors, head first, so its new last replica decides as the old one
   *       would have (a member leaving a chain is safe as a removal is: the change seals first);
   *   <li>if {@code node} is in no log chain of the current segment, the log is striped again over
   *       every node: the current segment closes at {@code newSegmentStart} and a new one opens
   *       there with one log chain per node, chain {@code i} being the R nodes from node {@code i}
   *       on, wrapping around (nodes in document order of the current segment, log chains first).
   *       Addresses below it stay on the chains that wrote them. When {@code newSegmentStart} is
   *       not after the current segment's start (nothing was written in it), the current segment's
   *       log chains are replaced in place.
   *   <li>when it replaces a node ({@link #withReplacement}), it takes that node's place: it joins,
   *       at the head, every chain of the closed segments that holds the old node or lacks a
   *       replica; the old node leaves every chain of every segment and is listed removed and
   *       retired; the sequencer moves to {@code node} if the old node was the sequencer. Every
   *       chain keeps as many replicas as it served with before the drain began.
   * </ul>
   *
   * @param newSegmentStart one above the highest log tail among the sealed log replicas
   */
  public static Layout promoted(Layout layout, Endpoint node, long newSegmentStart) {
    return Promotion.promoted(layout, node, newSegmentStart);
  }

  /**
   * Growth: {@code layout} at the next epoch with {@code node}, a new node, taking a share of the
   * cluster's replicas. A stream is placed by its hash over the current segment's stream chains
   * ({@code hash mod P}).
   *
   * <p><b>Splits.</b> When the grown cluster would have more nodes than stream chains ({@code P < N
   * + 1}), every stream chain first splits in two: chain {@code i} gets a child {@code i + P} with
   * the same members in the same order, and the streams whose {@code hash mod 2P} is {@code i + P}
   * move to it; {@link Layout#streamSplits()} counts the splits. A child's members hold every entry
   * of its streams (they held them as the parent's members), its last replica is the parent's, and
   * {@link Layout#streamChainOrder()} puts it right after its parent, so no entry's plan changes
   * its deciding replica or the order of its chains: a split is as safe as a layout change that
   * keeps every chain. A child inherits its parent's {@link Layout#streamChainSince}.
   *
   * <p><b>Places.</b> With N nodes in the current segment, P stream chains (after any split) and R
   * replicas each, the node joins {@code k = floor(P * R / (N + 1))} stream chains, at the head, as
   * a <em>rebuilding</em> replica: each time the chain whose most-placed member has the most places
   * (ties: the lower index), that member counting one place less from then on. Such a chain holds R
   * + 1 replicas until {@link #promoted(Layout, Endpoint, long)} takes that member out of it again
   * and stripes the log over every node, the new one included. The node copies what those chains
   * hold (as any rebuilding replica does) before it is promoted. Since {@code P >= N + 1} after any
   * split, {@code k} is at least R.
   *
   * <p>The current segment closes at {@code newSegmentStart} (as in {@link #withoutNode}). The node
   * leaves {@link Layout#spares()}, {@link Layout#removed()} and {@link Layout#retired()}; its
   * incarnation is forgotten (it claims its place again).
   *
   * @throws IllegalArgumentException if the layout sets no replication factor, the node is in the
   *     layout already, a replica is rebuilding, a node is draining, or a chain lacks a replica
   *     (restore those first: {@link #withRebuilding})
   */
  public static Layout withGrowth(Layout layout, Endpoint node, long newSegmentStart) {
    return Growth.withGrowth(layout, node, newSegmentStart);
  }

  /**
   * The closed segments' log chains {@link #promoted} would add {@code node} to, as (segment index,
   * chain index) pairs: what a rebuild of {@code node} must copy from the log besides its streams.
   */
  public static List<int[]> closedLogChainsToCopy(Layout layout, Endpoint node) {
    return Promotion.closedLogChainsToCopy(layout, node);
  }

  /**
   * {@code layout}, same epoch, with the removed {@code node} also listed as retired (it left on
   * request; healing does not bring it back).
   *
   * @throws IllegalArgumentException if {@code node} is not among the removed nodes
   */
  public static Layout retired(Layout layout, Endpoint node) {
    if (!layout.removed().contains(node)) {
      throw new IllegalArgumentException(node + " is not a removed node; only those retire.");
    }
    List<Endpoint> retired = new ArrayList<>(layout.retired());
    retired.add(node);
    return new Layout(
        layout.clusterId(),
        layout.epoch(),
        layout.sequencer(),
        layout.segments(),
        layout.replication(),
        layout.removed(),
        layout.incarnations(),
        layout.rebuilding(),
        layout.spares(),
        retired,
        layout.replacing(),
        layout.streamSince(),
        layout.streamSplits(),
        layout.rebuildingChains(),
        layout.draining());
  }

  /**
   * {@code layout}, same epoch, with {@code node} listed as a spare (see {@link Layout#spares()}).
   * A node that was removed leaves {@link Layout#removed()} (and {@link Layout#retired()}).
   *
   * @throws IllegalArgumentException if {@code node} is in the layout or a spare already
   */
  public static Layout withSpare(Layout layout, Endpoint node) {
    if (layout.allServers().contains(node) || layout.spares().contains(node)) {
      throw new IllegalArgumentException(
          node
              + " is "
              + (layout.spares().contains(node) ? "a spare" : "in the layout")
              + " of epoch "
              + layout.epoch()
              + " already.");
    }
    List<Endpoint> removed = new ArrayList<>(layout.removed());
    removed.remove(node);
    List<Endpoint> spares = new ArrayList<>(layout.spares());
    spares.add(node);
    List<Endpoint> retired = new ArrayList<>(layout.retired());
    retired.remove(node);
    return new Layout(
        layout.clusterId(),
        layout.epoch(),
        layout.sequencer(),
        layout.segments(),
        layout.replication(),
        removed,
        layout.incarnations(),
        layout.rebuilding(),
        spares,
        retired,
        layout.replacing(),
        layout.streamSince(),
        layout.streamSplits(),
        layout.rebuildingChains(),
        layout.draining());
  }

  /**
   * The chains of the current segment with fewer than R replicas (rebuilding ones count: they are
   * on their way), as "log i" / "stream i"; empty for a layout that sets no R.
   */
  public static List<String> underReplicated(Layout layout) {
    List<String> out = new ArrayList<>();
    if (layout.replication() < 1) {
      return out;
    }
    Segment current = layout.currentSegment();
    for (int c = 0; c < current.log().size(); c++) {
      if (current.log().get(c).size() < layout.replication()) {
        out.add("log " + c);
      }
    }
    for (int c = 0; c < current.stream().size(); c++) {
      if (current.stream().get(c).size() < layout.replication()) {
        out.add("stream " + c);
      }
    }
    return out;
  }

  /**
   * The same layout at the next epoch: what a sequencer that finds itself the sequencer of the
   * agreed layout commits before it issues a token, so that tokens it issued before a crash can
   * never be written.
   */
  public static Layout nextEpoch(Layout layout) {
    return layout.withEpoch(layout.epoch() + 1);
  }
}
