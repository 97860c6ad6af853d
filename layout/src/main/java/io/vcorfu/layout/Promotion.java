package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Promotion of a rebuilding replica ({@link LayoutChanges#promoted}): it joins the closed segments'
 * chains it copied, a growth or a drain it was part of finishes, and it is no longer rebuilding.
 * Chains keep their order otherwise, so the decider of every chain stays the same; a chain that
 * holds more than R replicas loses one member other than the node, and what it wrote is still on
 * its survivors, head first. Every chain keeps as many replicas as it served with before a drain
 * began.
 */
final class Promotion {
  private Promotion() {}

  /** {@code node} promoted, as {@link LayoutChanges#promoted(Layout, Endpoint, long)} describes. */
  static Layout promoted(Layout layout, Endpoint node, long newSegmentStart) {
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
      NodeJoins.opened(segments, newSegmentStart, ChainPlacement.striped(nodes, r), stream);
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
        NodeRemoval.without(layout.rebuildingChains(), node),
        layout.draining());
  }

  /** The chains {@link LayoutChanges#closedLogChainsToCopy} names. */
  static List<int[]> closedLogChainsToCopy(Layout layout, Endpoint node) {
    List<int[]> out = new ArrayList<>();
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
   * Whether {@link LayoutChanges#promoted} puts {@code node} in the closed segment's chain {@code
   * chain} (a log chain with {@code log}); the rule {@link LayoutChanges#closedLogChainsToCopy}
   * copies by. A node that rebuilds every chain it is in takes each chain short of R, and with
   * {@code old} (a drain) each chain holding it. A member draining {@code old} takes the chains
   * holding it only; a member healing takes the short chains of the kinds it rebuilds.
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
      return holdsOld && ChainPlacement.servesKind(layout.currentSegment(), node, log);
    }
    boolean kind = !(log ? joined.log() : joined.stream()).isEmpty();
    return kind && !chain.isEmpty() && chain.size() < r;
  }
}
