package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Membership changes that hand chains to nodes already in the cluster, which keep serving their own
 * chains meanwhile ({@link Layout#rebuildingChains()}): <em>healing onto members</em>, when chains
 * a failed node left short have no spare or returning node to restore them ({@link
 * #withMemberRebuilding}), and <em>drains onto members</em>, when a node leaves on request and no
 * spare takes its places ({@link #withDraining}, {@link #withMemberDrain}, {@link #drained}). The
 * node that joins is promoted by {@link LayoutChanges#promoted}, as every rebuilding replica is.
 * Like {@link LayoutChanges}, every function returns a new, valid layout or refuses with {@link
 * IllegalArgumentException}.
 */
public final class MemberChanges {
  private MemberChanges() {}

  /**
   * Healing onto a member: {@code layout} at the next epoch with {@code node}, a node that serves
   * chains of the current segment already, joined as a <em>rebuilding</em> replica at the head of
   * the chains {@link #memberJoins} names (every chain of the current segment that has replicas but
   * fewer than R, does not hold the node, and is of a kind, log or stream, the node serves). It
   * keeps serving, and deciding, every chain it was in; only the joined chains are recorded in
   * {@link Layout#rebuildingChains()} (from the start of the segment this change opens), so it
   * takes their writes from the new epoch on, decides none of them and serves no reads of them
   * until {@link LayoutChanges#promoted} makes it a full member there too. The current segment
   * closes at {@code newSegmentStart} (as in {@link LayoutChanges#withoutNode}); the node keeps its
   * incarnation.
   *
   * <p>This is how a cluster with more nodes than R restores R with no spare: the chains a failed
   * node left short are rebuilt on the nodes that were not in them.
   *
   * <p>The node may be the sequencer: it keeps sequencing (tokens do not depend on what its
   * replicas hold).
   *
   * @throws IllegalArgumentException if the layout sets no replication factor, a replica is
   *     rebuilding already (one at a time), {@code node} is in no chain of the current segment, or
   *     there is no chain for it to join
   */
  public static Layout withMemberRebuilding(Layout layout, Endpoint node, long newSegmentStart) {
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(node, "node");
    if (layout.replication() < 1) {
      throw new IllegalArgumentException("The layout sets no replication factor to restore.");
    }
    if (!layout.rebuilding().isEmpty()) {
      throw new IllegalArgumentException(
          "Replicas "
              + layout.rebuilding().keySet()
              + " are rebuilding; a member joins more chains after they are promoted.");
    }
    Segment current = layout.currentSegment();
    Set<Integer> log = joinable(current.log(), node, layout.replication());
    Set<Integer> stream = joinable(current.stream(), node, layout.replication());
    if (log.isEmpty() && stream.isEmpty()) {
      throw new IllegalArgumentException(
          node
              + " serves no chain of the current segment of epoch "
              + layout.epoch()
              + " that it could join, or no chain of the kinds it serves lacks a replica.");
    }
    return joined(layout, node, log, stream, null, newSegmentStart);
  }

  /**
   * A drain onto the other nodes, begun: {@code layout}, same epoch, with {@code old} listed as
   * draining ({@link Layout#draining()}). No chain changes: {@code old} keeps serving, and the
   * manager then hands its places to other nodes one at a time ({@link #withMemberDrain}, promoted
   * as any rebuilding replica), and takes it out of the layout ({@link #drained}) once it holds
   * none. So no chain ever serves with fewer replicas than before.
   *
   * @throws IllegalArgumentException if the layout sets no replication factor, or {@code old} is in
   *     no chain of the current segment, is rebuilding, or is draining already
   */
  public static Layout withDraining(Layout layout, Endpoint old) {
    if (layout.replication() < 1) {
      throw new IllegalArgumentException("The layout sets no replication factor.");
    }
    if (!holdsAPlace(layout.currentSegment(), old) || layout.isRebuilding(old)) {
      throw new IllegalArgumentException(
          old
              + " holds no serving place in the current segment of epoch "
              + layout.epoch()
              + "; there is nothing to hand over.");
    }
    if (layout.draining().contains(old)) {
      throw new IllegalArgumentException(old + " is draining already.");
    }
    List<Endpoint> draining = new ArrayList<>(layout.draining());
    draining.add(old);
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
        layout.retired(),
        layout.replacing(),
        layout.streamSince(),
        layout.streamSplits(),
        layout.rebuildingChains(),
        draining);
  }

  /**
   * The places of the draining node {@code old} that {@code member} would take in {@link
   * #withMemberDrain}: the chains of the current segment holding {@code old} and not {@code
   * member}, of the kinds (log, stream) {@code member} serves there ("log i", "stream i"), and the
   * closed segments' chains holding {@code old} and not {@code member} ("segment S log i").
   */
  public static List<String> drainTakes(Layout layout, Endpoint member, Endpoint old) {
    List<String> out = new ArrayList<>();
    if (member.equals(old)) {
      return out;
    }
    Segment current = layout.currentSegment();
    drainable(current.log(), member, old).forEach(c -> out.add("log " + c));
    drainable(current.stream(), member, old).forEach(c -> out.add("stream " + c));
    for (int i = 0; i < layout.segments().size() - 1; i++) {
      Segment s = layout.segments().get(i);
      for (int k = 0; k < s.log().size() + s.stream().size(); k++) {
        boolean isLog = k < s.log().size();
        int c = isLog ? k : k - s.log().size();
        List<Endpoint> chain = (isLog ? s.log() : s.stream()).get(c);
        boolean serves = ChainPlacement.servesKind(current, member, isLog);
        if (serves && chain.contains(old) && !chain.contains(member)) {
          out.add("segment " + s.start() + (isLog ? " log " : " stream ") + c);
        }
      }
    }
    return out;
  }

  /**
   * One step of a drain onto the other nodes: {@code layout} at the next epoch with {@code member}
   * joined, as a <em>rebuilding</em> replica that keeps serving its own chains, at the head of
   * every chain of the current segment that holds the draining node {@code old} and lacks it (of
   * the kinds it serves; those chains hold R + 1 replicas meanwhile), recorded as {@code old}'s
   * replacement in those chains ({@link Layout#replacing()}, {@link Layout#rebuildingChains()}). It
   * copies what they hold and what the closed segments' log chains holding {@code old} and not it
   * hold ({@link LayoutChanges#closedLogChainsToCopy}); {@link LayoutChanges#promoted} then takes
   * {@code old} out of exactly the chains {@code member} took, in every segment, in the same
   * change. The current segment closes at {@code newSegmentStart} (as in {@link
   * LayoutChanges#withoutNode}).
   *
   * @throws IllegalArgumentException if {@code old} is not draining, a replica is rebuilding
   *     already, {@code member} is {@code old}, in no chain of the current segment, or would take
   *     no place ({@link #drainTakes})
   */
  public static Layout withMemberDrain(
      Layout layout, Endpoint member, Endpoint old, long newSegmentStart) {
    Objects.requireNonNull(member, "member");
    if (!layout.draining().contains(old)) {
      throw new IllegalArgumentException(old + " is not draining at epoch " + layout.epoch() + ".");
    }
    if (!layout.rebuilding().isEmpty()) {
      throw new IllegalArgumentException(
          "Replicas "
              + layout.rebuilding().keySet()
              + " are rebuilding; the drain goes on after they are promoted.");
    }
    Segment current = layout.currentSegment();
    if (!holdsAPlace(current, member) || drainTakes(layout, member, old).isEmpty()) {
      throw new IllegalArgumentException(
          member + " is in no chain of the current segment, or can take no place of " + old + ".");
    }
    Set<Integer> log = drainable(current.log(), member, old);
    Set<Integer> stream = drainable(current.stream(), member, old);
    return joined(layout, member, log, stream, old, newSegmentStart);
  }

  /**
   * The end of a drain onto the other nodes: {@code layout} at the next epoch without {@code old},
   * which holds no place in any chain of any segment any more: it leaves {@link Layout#draining()}
   * and is listed removed and retired (it left on request); if it was the sequencer, the sequencer
   * moves as {@link LayoutChanges#withoutNode} moves it.
   *
   * @throws IllegalArgumentException if {@code old} is not draining or still holds a place
   */
  public static Layout drained(Layout layout, Endpoint old, long newSegmentStart) {
    if (!layout.draining().contains(old)) {
      throw new IllegalArgumentException(old + " is not draining at epoch " + layout.epoch() + ".");
    }
    for (Segment s : layout.segments()) {
      if (holdsAPlace(s, old)) {
        throw new IllegalArgumentException(
            old + " still holds a place in the segment starting at " + s.start() + ".");
      }
    }
    if (old.equals(layout.sequencer())) {
      return LayoutChanges.withoutNode(layout, old, newSegmentStart); // retires it: it was draining
    }
    List<Endpoint> removed = new ArrayList<>(layout.removed());
    removed.add(old);
    List<Endpoint> retired = new ArrayList<>(layout.retired());
    retired.add(old);
    Map<Endpoint, String> incarnations = new HashMap<>(layout.incarnations());
    incarnations.remove(old);
    return new Layout(
        layout.clusterId(),
        layout.epoch() + 1,
        layout.sequencer(),
        layout.segments(),
        layout.replication(),
        removed,
        incarnations,
        layout.rebuilding(),
        layout.spares(),
        retired,
        layout.replacing(),
        layout.streamSince(),
        layout.streamSplits(),
        layout.rebuildingChains(),
        layout.draining().stream().filter(e -> !e.equals(old)).toList());
  }

  /** True when {@code node} is in a log or stream chain of {@code s}. */
  public static boolean holdsAPlace(Segment s, Endpoint node) {
    return s.log().stream().anyMatch(c -> c.contains(node))
        || s.stream().stream().anyMatch(c -> c.contains(node));
  }

  /**
   * The indexes of {@code chains} that hold {@code old} and lack {@code member}, when {@code
   * member} is in one of them (it serves this kind of chain); else none.
   */
  private static Set<Integer> drainable(
      List<List<Endpoint>> chains, Endpoint member, Endpoint old) {
    return chainsFor(chains, member, c -> c.contains(old));
  }

  /**
   * The chains of the current segment {@link #withMemberRebuilding} would join {@code node} to, as
   * "log i" / "stream i": none when it is in no chain (then it is a spare or a returning node, see
   * {@link LayoutChanges#withRebuilding}).
   */
  public static List<String> memberJoins(Layout layout, Endpoint node) {
    List<String> out = new ArrayList<>();
    if (layout.replication() < 1) {
      return out;
    }
    Segment current = layout.currentSegment();
    joinable(current.log(), node, layout.replication()).stream()
        .sorted()
        .forEach(c -> out.add("log " + c));
    joinable(current.stream(), node, layout.replication()).stream()
        .sorted()
        .forEach(c -> out.add("stream " + c));
    return out;
  }

  /**
   * The indexes of {@code chains} that have replicas but fewer than {@code r} and lack {@code
   * node}, when {@code node} is in one of them (it serves this kind of chain); else none.
   */
  private static Set<Integer> joinable(List<List<Endpoint>> chains, Endpoint node, int r) {
    return chainsFor(chains, node, c -> !c.isEmpty() && c.size() < r);
  }

  /**
   * The indexes of {@code chains} that {@code wanted} accepts and that lack {@code node}, when
   * {@code node} is in one of them (it serves this kind of chain); else none.
   */
  private static Set<Integer> chainsFor(
      List<List<Endpoint>> chains,
      Endpoint node,
      java.util.function.Predicate<List<Endpoint>> wanted) {
    Set<Integer> out = new java.util.TreeSet<>();
    if (chains.stream().noneMatch(c -> c.contains(node))) {
      return out;
    }
    for (int c = 0; c < chains.size(); c++) {
      if (wanted.test(chains.get(c)) && !chains.get(c).contains(node)) {
        out.add(c);
      }
    }
    return out;
  }

  /**
   * {@code layout} at the next epoch with {@code node} at the head of log chains {@code log} and
   * stream chains {@code stream} of a segment opened at {@code newSegmentStart}, a rebuilding
   * replica of those chains only (and, with {@code replaces}, that node's replacement in them).
   */
  private static Layout joined(
      Layout layout,
      Endpoint node,
      Set<Integer> log,
      Set<Integer> stream,
      Endpoint replaces,
      long newSegmentStart) {
    Segment current = layout.currentSegment();
    List<Segment> segments = new ArrayList<>(layout.segments());
    NodeJoins.opened(
        segments,
        newSegmentStart,
        prepended(current.log(), node, log),
        prepended(current.stream(), node, stream));
    long epoch = layout.epoch() + 1;
    Map<Endpoint, Long> rebuilding = new HashMap<>(layout.rebuilding());
    rebuilding.put(node, epoch);
    Map<Endpoint, JoinedChains> chains = new HashMap<>(layout.rebuildingChains());
    chains.put(node, new JoinedChains(segments.get(segments.size() - 1).start(), log, stream));
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
        layout.removed(),
        layout.incarnations(),
        rebuilding,
        layout.spares(),
        layout.retired(),
        replacing,
        layout.streamSince(),
        layout.streamSplits(),
        chains,
        layout.draining());
  }

  /** {@code chains} with {@code node} at the head of those whose index is in {@code which}. */
  private static List<List<Endpoint>> prepended(
      List<List<Endpoint>> chains, Endpoint node, Set<Integer> which) {
    List<List<Endpoint>> out = new ArrayList<>(chains.size());
    for (int c = 0; c < chains.size(); c++) {
      if (which.contains(c)) {
        List<Endpoint> next = new ArrayList<>(chains.get(c).size() + 1);
        next.add(node);
        next.addAll(chains.get(c));
        out.add(next);
      } else {
        out.add(chains.get(c));
      }
    }
    return out;
  }
}
