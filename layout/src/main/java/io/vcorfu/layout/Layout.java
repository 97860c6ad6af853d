package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An epoch-stamped description of the cluster: which server sequences, and which chains of log and
 * stream replicas serve which addresses and streams. Immutable; every instance is valid (the
 * constructor checks everything {@link #fromJson} checks).
 *
 * <p>The JSON document:
 *
 * <pre>{@code
 * {"clusterId": "c1", "epoch": 1, "sequencer": "127.0.0.1:9000",
 *  "segments": [{"start": 0, "end": -1,
 *                "log": [["127.0.0.1:9001"], ["127.0.0.1:9002"]],
 *                "stream": [["127.0.0.1:9003"], ["127.0.0.1:9004"]]}]}
 * }</pre>
 *
 * Segments cover the global address space {@code [start, end)} without gaps or overlaps, each
 * starting where the previous one ends; only the last is open-ended ({@code "end": -1}) and it must
 * be. A chain is an ordered list of {@code host:port} endpoints, written in order; the last one of
 * an entry's whole chain decides (see {@link ChainPlan}).
 *
 * <p>Two optional fields serve cluster mode (see {@link LayoutChanges}): {@code "replication"}, the
 * cluster's replication factor R (no chain is longer; 0, the default and never written, means a
 * static layout that sets none), and {@code "removed"}, the nodes taken out of the layout in the
 * order they were removed (none of them may appear in a chain or as the sequencer; written only
 * when not empty), and {@code "incarnations"}, for each node of the layout that has claimed its
 * place, the incarnation of the data directory it serves from ({@code {"host:port": "id"}}; a node
 * whose data directory is not that incarnation, because it was wiped or swapped, must not serve the
 * data the layout counts on it for; written only when not empty).
 *
 * <p>Two more serve healing (see {@link LayoutChanges#withRebuilding}): {@code "rebuilding"}, the
 * nodes that joined chains as <em>rebuilding</em> replicas, each with the epoch it joined at
 * ({@code {"host:port": epoch}}): such a replica takes every write of its chains from that epoch on
 * but is never the last replica of a chain (it decides nothing and serves no reads) until a later
 * layout promotes it; and {@code "spares"}, nodes added to the cluster that hold no place in a
 * chain yet, ready to restore a chain that lost a replica. Both are written only when not empty.
 * Last, {@code "retired"}: the removed nodes that left on request ({@code vcorfu cluster
 * remove-node}), which the manager never brings back by itself (a node removed because it failed is
 * brought back as soon as it answers again); written only when not empty. And {@code "replacing"}:
 * for a rebuilding replica that takes another node's places (a drain, see {@link
 * LayoutChanges#withReplacement}), the node it replaces ({@code {"new": "old"}}); the old node
 * keeps serving until the new one is promoted, which takes it out of every chain in the same
 * change; written only when not empty.
 *
 * @param replication the replication factor R, or 0 when the layout sets none
 * @param removed the nodes removed from the cluster, oldest first
 * @param incarnations the data-directory incarnation each node claimed its place with
 * @param rebuilding the rebuilding replicas, each with the epoch it joined its chains at
 * @param spares the nodes in no chain that may be given a place in one
 * @param retired the removed nodes that left on request
 * @param replacing the rebuilding replicas that take a leaving node's places, each with that node
 * @param streamSince for stream chains of the current segment taken up again after they were empty,
 *     the epoch from which they take part in entries' chain plans
 * @param streamSplits how many times the stream chains were split in two as the cluster grew
 *     ({@code "streamSplits"}, written only when not 0; see {@link LayoutChanges#withGrowth}): the
 *     current segment's stream chains descend from {@code P / 2^streamSplits} root chains, and
 *     {@link #streamChainOrder()} orders them so that a split never reorders chains in a plan
 * @param rebuildingChains for a rebuilding replica that keeps serving its other chains (it joined
 *     chains that lacked a replica while it was a member of others, see {@link
 *     MemberChanges#withMemberRebuilding}), the chains it rebuilds ({@code "rebuildingChains":
 *     {"host:port": {"from": 1200, "log": [1], "stream": [0, 3]}}}, written only when not empty); a
 *     rebuilding replica without an entry rebuilds every chain it is in
 */
public record Layout(
    String clusterId,
    long epoch,
    Endpoint sequencer,
    List<Segment> segments,
    int replication,
    List<Endpoint> removed,
    Map<Endpoint, String> incarnations,
    Map<Endpoint, Long> rebuilding,
    List<Endpoint> spares,
    List<Endpoint> retired,
    Map<Endpoint, Endpoint> replacing,
    Map<Integer, Long> streamSince,
    int streamSplits,
    Map<Endpoint, JoinedChains> rebuildingChains,
    List<Endpoint> draining) {

  public Layout {
    segments = segments == null ? List.of() : List.copyOf(segments);
    removed = LayoutValidator.copyNodes(removed);
    incarnations = incarnations == null ? Map.of() : Map.copyOf(incarnations);
    rebuilding = rebuilding == null ? Map.of() : Map.copyOf(rebuilding);
    spares = LayoutValidator.copyNodes(spares);
    retired = LayoutValidator.copyNodes(retired);
    if (!removed.containsAll(retired)) {
      throw new LayoutException(
          "Every retired node must be listed among the removed ones; " + retired + " are not.");
    }
    LayoutValidator.validate(clusterId, epoch, sequencer, segments, replication, removed);
    LayoutValidator.checkIncarnations(incarnations, removed);
    rebuildingChains = rebuildingChains == null ? Map.of() : Map.copyOf(rebuildingChains);
    LayoutValidator.checkHealing(
        epoch, sequencer, segments, replication, removed, rebuilding, spares, rebuildingChains);
    replacing = replacing == null ? Map.of() : Map.copyOf(replacing);
    LayoutValidator.checkReplacing(segments, removed, rebuilding, replacing);
    streamSince = streamSince == null ? Map.of() : Map.copyOf(streamSince);
    LayoutValidator.checkStreamChains(epoch, segments, replication, streamSince);
    LayoutValidator.checkStreamSplits(segments, replication, streamSplits);
    LayoutValidator.checkRebuildingChains(segments, rebuilding, rebuildingChains, replacing);
    draining = LayoutValidator.copyNodes(draining);
    LayoutValidator.checkDraining(sequencer, segments, removed, spares, rebuilding, draining);
  }

  /** A layout in which no node is being drained onto the other nodes. */
  public Layout(
      String clusterId,
      long epoch,
      Endpoint sequencer,
      List<Segment> segments,
      int replication,
      List<Endpoint> removed,
      Map<Endpoint, String> incarnations,
      Map<Endpoint, Long> rebuilding,
      List<Endpoint> spares,
      List<Endpoint> retired,
      Map<Endpoint, Endpoint> replacing,
      Map<Integer, Long> streamSince,
      int streamSplits,
      Map<Endpoint, JoinedChains> rebuildingChains) {
    this(
        clusterId,
        epoch,
        sequencer,
        segments,
        replication,
        removed,
        incarnations,
        rebuilding,
        spares,
        retired,
        replacing,
        streamSince,
        streamSplits,
        rebuildingChains,
        List.of());
  }

  /** A layout in which every rebuilding replica rebuilds every chain it is in. */
  public Layout(
      String clusterId,
      long epoch,
      Endpoint sequencer,
      List<Segment> segments,
      int replication,
      List<Endpoint> removed,
      Map<Endpoint, String> incarnations,
      Map<Endpoint, Long> rebuilding,
      List<Endpoint> spares,
      List<Endpoint> retired,
      Map<Endpoint, Endpoint> replacing,
      Map<Integer, Long> streamSince,
      int streamSplits) {
    this(
        clusterId,
        epoch,
        sequencer,
        segments,
        replication,
        removed,
        incarnations,
        rebuilding,
        spares,
        retired,
        replacing,
        streamSince,
        streamSplits,
        Map.of(),
        List.of());
  }

  /** A layout in which no node is being replaced and every stream chain is in every plan. */
  public Layout(
      String clusterId,
      long epoch,
      Endpoint sequencer,
      List<Segment> segments,
      int replication,
      List<Endpoint> removed,
      Map<Endpoint, String> incarnations,
      Map<Endpoint, Long> rebuilding,
      List<Endpoint> spares,
      List<Endpoint> retired) {
    this(
        clusterId,
        epoch,
        sequencer,
        segments,
        replication,
        removed,
        incarnations,
        rebuilding,
        spares,
        retired,
        Map.of(),
        Map.of(),
        0);
  }

  /** A layout with no rebuilding replica and no spare. */
  public Layout(
      String clusterId,
      long epoch,
      Endpoint sequencer,
      List<Segment> segments,
      int replication,
      List<Endpoint> removed,
      Map<Endpoint, String> incarnations) {
    this(
        clusterId,
        epoch,
        sequencer,
        segments,
        replication,
        removed,
        incarnations,
        Map.of(),
        List.of(),
        List.of());
  }

  /** A layout whose nodes have claimed no incarnation yet. */
  public Layout(
      String clusterId,
      long epoch,
      Endpoint sequencer,
      List<Segment> segments,
      int replication,
      List<Endpoint> removed) {
    this(clusterId, epoch, sequencer, segments, replication, removed, Map.of());
  }

  /** A layout that sets no replication factor and has removed no node (a static layout). */
  public Layout(String clusterId, long epoch, Endpoint sequencer, List<Segment> segments) {
    this(clusterId, epoch, sequencer, segments, 0, List.of());
  }

  /**
   * A layout with every role on one server: one log chain and one stream chain, both just {@code
   * node}, at epoch 1. Epoch 1 (not 0) so that a request whose header never set an epoch (proto3
   * default 0) is always recognized as stale.
   */
  public static Layout singleNode(Endpoint node, String clusterId) {
    Objects.requireNonNull(node, "node");
    return new Layout(
        clusterId,
        1,
        node,
        List.of(new Segment(0, Segment.OPEN, List.of(List.of(node)), List.of(List.of(node)))));
  }

  /**
   * Parses and validates a layout document; throws {@link LayoutException} saying what is wrong.
   */
  public static Layout fromJson(String json) {
    return LayoutJson.parse(json);
  }

  /** This layout as its JSON document; {@code fromJson(toJson())} equals this layout. */
  public String toJson() {
    return LayoutJson.write(this);
  }

  /** The same layout stamped with another epoch (everything else kept). */
  public Layout withEpoch(long newEpoch) {
    return new Layout(
        clusterId,
        newEpoch,
        sequencer,
        segments,
        replication,
        removed,
        incarnations,
        rebuilding,
        spares,
        retired,
        replacing,
        streamSince,
        streamSplits,
        rebuildingChains,
        draining);
  }

  /** True when {@code node} is a rebuilding replica (in chains, not yet promoted). */
  public boolean isRebuilding(Endpoint node) {
    return rebuilding.containsKey(node);
  }

  /**
   * True when {@code node} rebuilds every chain it is in: it joined as a spare, a returning node or
   * a growing node, serves no reads at all and decides nothing until it is promoted.
   */
  public boolean rebuildsAll(Endpoint node) {
    return rebuilding.containsKey(node) && !rebuildingChains.containsKey(node);
  }

  /**
   * True when {@code node} is a rebuilding replica of chain {@code index} of {@code segment} (a log
   * chain with {@code log}, else a stream chain): it is in the chain, takes its writes, but decides
   * nothing and serves no reads of it.
   */
  public boolean rebuildsIn(Endpoint node, Segment segment, boolean log, int index) {
    return (log ? segment.log() : segment.stream()).get(index).contains(node)
        && LayoutValidator.rebuilds(rebuilding, rebuildingChains, node, segment, log, index);
  }

  /** True when {@code node} is a rebuilding replica of the log chain of {@code globalAddress}. */
  public boolean rebuildsLog(Endpoint node, long globalAddress) {
    if (!rebuilding.containsKey(node)) {
      return false;
    }
    Segment s = segmentOf(globalAddress);
    return rebuildsIn(node, s, true, (int) (globalAddress % s.log().size()));
  }

  /**
   * True when {@code node} is a rebuilding replica of stream chain {@code index} of the current
   * segment.
   */
  public boolean rebuildsStream(Endpoint node, int index) {
    return rebuildsIn(node, currentSegment(), false, index);
  }

  /**
   * The replicas of chain {@code index} of {@code segment} (a log chain with {@code log}) that
   * serve: every one but its rebuilding replicas. The last of them is the chain's decider.
   */
  public List<Endpoint> serving(Segment segment, boolean log, int index) {
    List<Endpoint> chain = (log ? segment.log() : segment.stream()).get(index);
    return rebuilding.isEmpty()
        ? chain
        : chain.stream().filter(e -> !rebuildsIn(e, segment, log, index)).toList();
  }

  /** The replicas of the log chain of {@code globalAddress} that serve (see {@link #serving}). */
  public List<Endpoint> servingLog(long globalAddress) {
    Segment s = segmentOf(globalAddress);
    return serving(s, true, (int) (globalAddress % s.log().size()));
  }

  /**
   * The replicas of stream chain {@code index} of the current segment that serve (see {@link
   * #serving}).
   */
  public List<Endpoint> servingStream(int index) {
    return serving(currentSegment(), false, index);
  }

  /**
   * The same layout, same epoch, recording that {@code node} serves from the data directory
   * incarnation {@code incarnation}.
   */
  public Layout withIncarnation(Endpoint node, String incarnation) {
    Map<Endpoint, String> next = new HashMap<>(incarnations);
    next.put(node, incarnation);
    return new Layout(
        clusterId,
        epoch,
        sequencer,
        segments,
        replication,
        removed,
        next,
        rebuilding,
        spares,
        retired,
        replacing,
        streamSince,
        streamSplits,
        rebuildingChains,
        draining);
  }

  /** The segment holding {@code globalAddress}; throws {@link LayoutException} if none does. */
  public Segment segmentOf(long globalAddress) {
    for (int i = segments.size() - 1; i >= 0; i--) {
      Segment s = segments.get(i);
      if (s.contains(globalAddress)) {
        return s;
      }
    }
    throw new LayoutException(
        "Global address "
            + globalAddress
            + " is not covered by any segment of the layout at epoch "
            + epoch
            + " (the first segment starts at "
            + segments.get(0).start()
            + ").");
  }

  /** The log chain for {@code globalAddress}: chain {@code g mod (log chains of its segment)}. */
  public List<Endpoint> logChain(long globalAddress) {
    List<List<Endpoint>> chains = segmentOf(globalAddress).log();
    return chains.get((int) (globalAddress % chains.size()));
  }

  /** The index of {@code stream}'s chain among the last segment's stream chains. */
  public int streamChainIndex(StreamId stream) {
    return stream.placementHash() % currentSegment().stream().size();
  }

  /** The stream chain hosting {@code stream}: placed by the last (open) segment. */
  public List<Endpoint> streamChain(StreamId stream) {
    return currentSegment().stream().get(streamChainIndex(stream));
  }

  /**
   * The order in which an entry's plan visits the stream chains of the current segment (the last
   * one decides), by root chain and then parent before child ({@link StreamChainOrder} says how): a
   * split ({@link LayoutChanges#withGrowth}) never changes the relative order of two streams'
   * chains, and an entry written before a split keeps its deciding chain. With no split this is the
   * chain index order.
   */
  public Comparator<Integer> streamChainOrder() {
    return StreamChainOrder.of(currentSegment().stream().size(), streamSplits);
  }

  /**
   * The epoch from which stream chain {@code index} of the current segment takes part in entries'
   * chain plans: 0 unless the chain was taken up again after it was empty.
   */
  public long streamChainSince(int index) {
    return streamSince.getOrDefault(index, 0L);
  }

  /** The replica visits for writing an entry at {@code globalAddress} to {@code streams}. */
  public ChainPlan chainPlan(long globalAddress, List<StreamId> streams) {
    return ChainPlan.of(this, globalAddress, streams);
  }

  /** The last, open-ended segment: where new writes and all streams are placed. */
  public Segment currentSegment() {
    return segments.get(segments.size() - 1);
  }

  /**
   * True when the sequencer is the only replica of every log chain and every stream chain of the
   * current segment (a one-node layout): every new entry is then written entirely on the node that
   * issues its token, which can take the whole append in one request.
   */
  public boolean sequencerHostsEveryChain() {
    return SequencerPlacement.hostsEveryChain(this);
  }

  /**
   * True when the sequencer serves in every log chain of the current segment and other nodes hold
   * copies too: the sequencer node can then take an append whole (token and data in one request)
   * and write every copy itself, and its own log replica holds every entry that can commit, so it
   * can look a retried append up there (see {@link #sequencerHoldsLog}).
   */
  public boolean sequencerDrivesAppends() {
    return SequencerPlacement.drivesAppends(this);
  }

  /**
   * True when the sequencer is a serving replica of the log chain of every address in {@code [from,
   * to]} (an empty range holds): it was written every copy there that could commit, so its log
   * replica alone tells which entries those addresses hold.
   */
  public boolean sequencerHoldsLog(long from, long to) {
    return SequencerPlacement.holdsLog(this, from, to);
  }

  /** How many chains, log and stream, of every segment hold {@code node}. */
  public long places(Endpoint node) {
    return LayoutNodes.places(this, node);
  }

  /** Every server that appears in a log chain of any segment, in document order. */
  public Set<Endpoint> logServers() {
    return LayoutNodes.logServers(this);
  }

  /** Every server that appears in a stream chain of any segment, in document order. */
  public Set<Endpoint> streamServers() {
    return LayoutNodes.streamServers(this);
  }

  /**
   * Every server named as sequencer or in a chain of any segment, sequencer first, then in document
   * order (segments oldest first, log chains before stream chains). Removed nodes are not named.
   */
  public Set<Endpoint> allServers() {
    return LayoutNodes.allServers(this);
  }
}
