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
    Objects.requireNonNull(nodes, "nodes");
    if (streamChains < 1 && !nodes.isEmpty()) {
      throw new IllegalArgumentException(
          "A cluster needs at least one stream chain, got " + streamChains + ".");
    }
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
    List<List<Endpoint>> log = ChainPlacement.striped(nodes, replication);
    List<List<Endpoint>> stream = new ArrayList<>(streamChains);
    for (int i = 0; i < streamChains; i++) {
      stream.add(log.get(i % n));
    }
    return new Layout(
        clusterId,
        1,
        nodes.get(0),
        List.of(new Segment(0, Segment.OPEN, log, stream)),
        replication,
        List.of());
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
    Objects.requireNonNull(streamNodes, "streamNodes");
    Layout logOnly = initial(clusterId, logNodes, replication, 1);
    for (Endpoint e : streamNodes) {
      if (logNodes.contains(e)) {
        throw new IllegalArgumentException(
            e + " is listed among both the log nodes and the stream nodes; list it once.");
      }
    }
    Layout streamOnly = initial(clusterId, streamNodes, replication, streamChains);
    return new Layout(
        clusterId,
        1,
        logNodes.get(0),
        List.of(
            new Segment(
                0,
                Segment.OPEN,
                logOnly.currentSegment().log(),
                streamOnly.currentSegment().stream())),
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
  private static <V> Map<Endpoint, V> without(Map<Endpoint, V> map, Endpoint key) {
    Map<Endpoint, V> out = new HashMap<>(map);
    out.remove(key);
    return out;
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
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(node, "node");
    if (layout.allServers().contains(node)) {
      throw new IllegalArgumentException(
          node + " is in the layout of epoch " + layout.epoch() + " already.");
    }
    if (layout.replication() < 1) {
      throw new IllegalArgumentException("The layout sets no replication factor to restore.");
    }
    if (underReplicated(layout).size() == emptyStreamChains(layout).size()) {
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
  private static void checkNoDrain(Layout layout, String what) {
    if (!layout.draining().isEmpty()) {
      throw new IllegalArgumentException(
          "Nodes "
              + layout.draining()
              + " are being drained onto the other nodes; "
              + what
              + " after they have left.");
    }
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
  private static Layout joining(
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
    if (!layout.isRebuilding(node)) {
      throw new IllegalArgumentException(
          node + " is not a rebuilding replica at epoch " + layout.epoch() + ".");
    }
    Endpoint old = layout.replacing().get(node);
    JoinedChains joined = layout.rebuildingChains().get(node);
    List<Segment> segments = new ArrayList<>(layout.segments().size());
    int last = layout.segments().size() - 1;
    int r = layout.replication();
    // A member draining OLD hands over only the places it took; OLD keeps the others for now.
    boolean partial = joined != null && old != null;
    for (int i = 0; i < layout.segments().size(); i++) {
      Segment s = layout.segments().get(i);
      List<List<Endpoint>> log = new ArrayList<>(s.log());
      List<List<Endpoint>> stream = new ArrayList<>(s.stream());
      for (int k = 0; k < log.size() + stream.size(); k++) {
        boolean isLog = k < log.size();
        List<List<Endpoint>> chains = isLog ? log : stream;
        int c = isLog ? k : k - log.size();
        List<Endpoint> chain = chains.get(c);
        boolean takes = i != last && closedTakes(layout, old, isLog, chain, node);
        if (takes) {
          List<Endpoint> next = new ArrayList<>(chain.size() + 1);
          next.add(node);
          next.addAll(chain);
          chain = next;
        }
        // A partial drain hands over the chains the member took: those it joins now (closed) and
        // those it joined as a rebuilding replica (the current segment's, and those of segments
        // opened since its join, which list it too).
        boolean handsOver = old != null && (!partial || takes || joined.covers(s, isLog, c));
        if (handsOver) {
          chain = chain.stream().filter(e -> !e.equals(old)).toList();
        }
        chains.set(c, chain);
      }
      // Growth: a chain the node joined with R members gives one up; so does the same chain of a
      // segment opened while it copied (it lists the node there too). No other chain exceeds R.
      segments.add(
          new Segment(
              s.start(),
              s.end(),
              ChainPlacement.trimmed(log, node, r),
              ChainPlacement.trimmed(stream, node, r)));
    }
    Segment current = segments.get(last);
    List<List<Endpoint>> log = current.log();
    List<List<Endpoint>> stream = current.stream();
    if (joined == null && log.stream().noneMatch(c -> c.contains(node))) {
      // A node that rebuilt lost log chains (LostLogChains) is in no chain of the current
      // segment: it is striped in with the others.
      List<Endpoint> nodes = ChainPlacement.members(log, stream);
      if (!nodes.contains(node)) {
        nodes.add(node);
      }
      opened(segments, newSegmentStart, ChainPlacement.striped(nodes, r), stream);
    }
    Map<Endpoint, Long> rebuilding = new HashMap<>(layout.rebuilding());
    rebuilding.remove(node);
    Map<Endpoint, Endpoint> replacing = new HashMap<>(layout.replacing());
    replacing.remove(node);
    Endpoint sequencer = layout.sequencer();
    List<Endpoint> removed = new ArrayList<>(layout.removed());
    List<Endpoint> retired = new ArrayList<>(layout.retired());
    Map<Endpoint, String> incarnations = new HashMap<>(layout.incarnations());
    if (old != null && !partial) {
      // The drained node leaves on request: removed, and retired so healing never brings it back.
      removed.add(old);
      retired.add(old);
      incarnations.remove(old);
      if (sequencer.equals(old)) {
        sequencer = node;
      }
    }
    return new Layout(
        layout.clusterId(),
        layout.epoch() + 1,
        sequencer,
        segments,
        r,
        removed,
        incarnations,
        rebuilding,
        layout.spares(),
        retired,
        replacing,
        layout.streamSince(),
        layout.streamSplits(),
        without(layout.rebuildingChains(), node),
        layout.draining());
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
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(node, "node");
    int r = layout.replication();
    if (r < 1) {
      throw new IllegalArgumentException("The layout sets no replication factor; it cannot grow.");
    }
    if (layout.allServers().contains(node)) {
      throw new IllegalArgumentException(
          node + " is in the layout of epoch " + layout.epoch() + " already.");
    }
    if (!layout.rebuilding().isEmpty()) {
      throw new IllegalArgumentException(
          "Replicas "
              + layout.rebuilding().keySet()
              + " are rebuilding; the cluster grows one node at a time, after they are promoted.");
    }
    checkNoDrain(layout, "the cluster grows");
    if (!underReplicated(layout).isEmpty()) {
      throw new IllegalArgumentException(
          "Chains "
              + underReplicated(layout)
              + " lack a replica; a new node restores them first (as a spare) before the cluster"
              + " grows.");
    }
    List<Segment> segments = new ArrayList<>(layout.segments());
    Segment current = segments.get(segments.size() - 1);
    List<Endpoint> members = ChainPlacement.members(current.log(), current.stream());
    List<List<Endpoint>> stream = new ArrayList<>(current.stream());
    Map<Integer, Long> since = layout.streamSince();
    int splits = layout.streamSplits();
    if (stream.size() < members.size() + 1) {
      int p = stream.size();
      Map<Integer, Long> inherited = new HashMap<>(since);
      for (int c = 0; c < p; c++) {
        stream.add(stream.get(c));
        if (since.containsKey(c)) {
          inherited.put(c + p, since.get(c));
        }
      }
      since = inherited;
      splits++;
    }
    // At least R places: P >= N + 1 now.
    int k = stream.size() * r / (members.size() + 1);
    Map<Endpoint, Integer> places = ChainPlacement.places(stream);
    for (int j = 0; j < k; j++) {
      int best = -1;
      Endpoint busiest = null;
      for (int c = 0; c < stream.size(); c++) {
        if (stream.get(c).contains(node)) {
          continue;
        }
        Endpoint m = ChainPlacement.mostPlaced(stream.get(c), places, node);
        if (best < 0 || places.get(m) > places.get(busiest)) {
          best = c;
          busiest = m;
        }
      }
      places.merge(busiest, -1, Integer::sum);
      List<Endpoint> chain = new ArrayList<>(stream.get(best).size() + 1);
      chain.add(node);
      chain.addAll(stream.get(best));
      stream.set(best, chain);
    }
    opened(segments, newSegmentStart, current.log(), stream);
    return joining(layout, node, segments, true, null, since, splits);
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
   * The closed segments' log chains {@link #promoted} would add {@code node} to, as (segment index,
   * chain index) pairs: what a rebuild of {@code node} must copy from the log besides its streams.
   */
  public static List<int[]> closedLogChainsToCopy(Layout layout, Endpoint node) {
    List<int[]> out = new ArrayList<>();
    JoinedChains joined = layout.rebuildingChains().get(node);
    Endpoint old = layout.replacing().get(node);
    for (int i = 0; i < layout.segments().size() - 1; i++) {
      List<List<Endpoint>> log = layout.segments().get(i).log();
      for (int c = 0; c < log.size(); c++) {
        List<Endpoint> chain = log.get(c);
        if (closedTakes(layout, old, true, chain, node)) {
          out.add(new int[] {i, c});
        }
      }
    }
    return out;
  }

  /**
   * Whether {@link #promoted} puts {@code node} in the closed segment's chain {@code chain} (a log
   * chain with {@code log}); the rule {@link #closedLogChainsToCopy} copies by. A node that
   * rebuilds every chain it is in takes each chain short of R, and with {@code old} (a drain) each
   * chain holding it. A member draining {@code old} takes the chains holding it only; a member
   * healing takes the short chains of the kinds it rebuilds.
   */
  private static boolean closedTakes(
      Layout layout, Endpoint old, boolean log, List<Endpoint> chain, Endpoint node) {
    if (chain.contains(node)) {
      return false;
    }
    JoinedChains joined = layout.rebuildingChains().get(node);
    int r = layout.replication();
    boolean holdsOld = old != null && chain.contains(old);
    if (joined == null) {
      return (!chain.isEmpty() && chain.size() < r) || holdsOld;
    }
    if (old != null) {
      return holdsOld && servesKind(layout.currentSegment(), node, log);
    }
    boolean kind = !(log ? joined.log() : joined.stream()).isEmpty();
    return kind && !chain.isEmpty() && chain.size() < r;
  }

  /** True when {@code node} is in a log chain of {@code s} ({@code log}), else a stream chain. */
  static boolean servesKind(Segment s, Endpoint node, boolean log) {
    return (log ? s.log() : s.stream()).stream().anyMatch(c -> c.contains(node));
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
   * {@code chains} with {@code node} at the head of every chain that lacks it and either holds
   * {@code old} (a drain; null for none) or has replicas but fewer than {@code replication}. An
   * empty stream chain is taken up by {@link #withTakeover}, never by a rebuilding replica.
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

  /**
   * The same layout at the next epoch: what a sequencer that finds itself the sequencer of the
   * agreed layout commits before it issues a token, so that tokens it issued before a crash can
   * never be written.
   */
  public static Layout nextEpoch(Layout layout) {
    return layout.withEpoch(layout.epoch() + 1);
  }

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
