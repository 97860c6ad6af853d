package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** The rules every {@link Layout} obeys; each violation is a {@link LayoutException} sentence. */
final class LayoutValidator {
  private LayoutValidator() {}

  /**
   * {@code nodes} as an unmodifiable list, empty for null; a layout's lists of nodes hold no null.
   */
  static List<Endpoint> copyNodes(List<Endpoint> nodes) {
    if (nodes == null) {
      return List.of();
    }
    if (nodes.stream().anyMatch(Objects::isNull)) {
      throw new LayoutException("A layout's list of nodes must not contain a null endpoint.");
    }
    return List.copyOf(nodes);
  }

  static void validate(
      String clusterId,
      long epoch,
      Endpoint sequencer,
      List<Segment> segments,
      int replication,
      List<Endpoint> removed) {
    if (clusterId == null || clusterId.isBlank()) {
      throw new LayoutException("The layout has no clusterId; it must name the cluster.");
    }
    if (epoch < 0) {
      throw new LayoutException("The layout epoch is " + epoch + " but it must not be negative.");
    }
    if (sequencer == null) {
      throw new LayoutException("The layout names no sequencer.");
    }
    if (segments.isEmpty()) {
      throw new LayoutException("The layout has no segments; it needs at least one.");
    }
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      String where = "Segment " + i;
      if (s == null) {
        throw new LayoutException(where + " is null.");
      }
      if (s.start() < 0) {
        throw new LayoutException(where + " starts at " + s.start() + " but must start at >= 0.");
      }
      boolean last = i == segments.size() - 1;
      if (last && !s.isOpen()) {
        throw new LayoutException(
            where
                + " is the last segment and must be open-ended (end -1), but ends at "
                + s.end()
                + ".");
      }
      if (!last && s.isOpen()) {
        throw new LayoutException(
            where + " is open-ended (end -1) but only the last segment may be.");
      }
      if (!s.isOpen() && s.end() <= s.start()) {
        throw new LayoutException(
            where + " ends at " + s.end() + ", which is not after its start " + s.start() + ".");
      }
      if (i > 0) {
        long prevEnd = segments.get(i - 1).end();
        if (s.start() > prevEnd) {
          throw new LayoutException(
              "There is a gap between segment "
                  + (i - 1)
                  + " (ending at "
                  + prevEnd
                  + ") and segment "
                  + i
                  + " (starting at "
                  + s.start()
                  + "); addresses in between have no replicas.");
        }
        if (s.start() < prevEnd) {
          throw new LayoutException(
              "Segment "
                  + (i - 1)
                  + " (ending at "
                  + prevEnd
                  + ") overlaps segment "
                  + i
                  + " (starting at "
                  + s.start()
                  + ").");
        }
      }
      checkChains(where, "log", s.log(), false);
      // In cluster mode a stream chain may lose every replica: the log decides its entries then.
      checkChains(where, "stream", s.stream(), replication > 0);
    }
    checkRemoved(sequencer, segments, replication, removed);
  }

  private static void checkRemoved(
      Endpoint sequencer, List<Segment> segments, int replication, List<Endpoint> removed) {
    if (replication < 0) {
      throw new LayoutException(
          "The layout's replication is "
              + replication
              + " but it must be at least 1 (or absent, 0, for a layout that sets none).");
    }
    Set<Endpoint> seen = new HashSet<>();
    for (Endpoint r : removed) {
      if (!seen.add(r)) {
        throw new LayoutException("The layout lists " + r + " among its removed nodes twice.");
      }
    }
    if (seen.contains(sequencer)) {
      throw new LayoutException(
          "The layout's sequencer " + sequencer + " is listed among its removed nodes.");
    }
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      checkNoneRemoved("Segment " + i + " log", s.log(), seen);
      checkNoneRemoved("Segment " + i + " stream", s.stream(), seen);
    }
  }

  private static void checkNoneRemoved(
      String where, List<List<Endpoint>> chains, Set<Endpoint> removed) {
    for (int c = 0; c < chains.size(); c++) {
      for (Endpoint e : chains.get(c)) {
        if (removed.contains(e)) {
          throw new LayoutException(
              where + " chain " + c + " names " + e + ", which the layout lists as removed.");
        }
      }
    }
  }

  private static void checkChains(
      String where, String kind, List<List<Endpoint>> chains, boolean mayBeEmpty) {
    if (chains.isEmpty()) {
      throw new LayoutException(where + " has no " + kind + " chains; it needs at least one.");
    }
    for (int c = 0; c < chains.size(); c++) {
      List<Endpoint> chain = chains.get(c);
      if (chain.isEmpty() && !mayBeEmpty) {
        throw new LayoutException(where + " has an empty " + kind + " chain at index " + c + ".");
      }
      Set<Endpoint> seen = new HashSet<>();
      for (Endpoint e : chain) {
        if (e == null) {
          throw new LayoutException(
              where + " " + kind + " chain " + c + " contains a null endpoint.");
        }
        if (!seen.add(e)) {
          throw new LayoutException(
              where + " " + kind + " chain " + c + " lists " + e + " more than once.");
        }
      }
    }
  }

  static void checkIncarnations(Map<Endpoint, String> incarnations, List<Endpoint> removed) {
    for (Map.Entry<Endpoint, String> e : incarnations.entrySet()) {
      if (e.getValue() == null || e.getValue().isBlank()) {
        throw new LayoutException(
            "The layout's incarnation of " + e.getKey() + " must be a non-empty string.");
      }
      if (removed.contains(e.getKey())) {
        throw new LayoutException(
            "The layout records an incarnation of " + e.getKey() + ", which it lists as removed.");
      }
    }
  }

  /**
   * Rebuilding replicas are in a chain of the current segment, never the last replica of any chain
   * (but the only member of a closed segment's log chain rebuilt from the stream replicas, which
   * may be its only place: see {@link LostLogChains}), never the sequencer nor removed, and joined
   * at an epoch from 1 to the layout's; spares are in no chain, not the sequencer, not removed, not
   * rebuilding, and listed once.
   */
  static void checkHealing(
      long epoch,
      Endpoint sequencer,
      List<Segment> segments,
      int replication,
      List<Endpoint> removed,
      Map<Endpoint, Long> rebuilding,
      List<Endpoint> spares,
      Map<Endpoint, JoinedChains> rebuildingChains) {
    Segment current = segments.get(segments.size() - 1);
    if (replication > 0) {
      for (int i = 0; i < segments.size(); i++) {
        Segment s = segments.get(i);
        java.util.function.BiPredicate<Endpoint, Integer> logRebuilds =
            (e, c) -> rebuilds(rebuilding, rebuildingChains, e, s, true, c);
        java.util.function.BiPredicate<Endpoint, Integer> streamRebuilds =
            (e, c) -> rebuilds(rebuilding, rebuildingChains, e, s, false, c);
        checkLength("Segment " + i, "log", s.log(), replication, logRebuilds);
        checkLength("Segment " + i, "stream", s.stream(), replication, streamRebuilds);
      }
    }
    for (Map.Entry<Endpoint, Long> e : rebuilding.entrySet()) {
      Endpoint node = e.getKey();
      String what = "The layout's rebuilding replica " + node;
      if (e.getValue() == null || e.getValue() < 1 || e.getValue() > epoch) {
        throw new LayoutException(
            what + " joined at epoch " + e.getValue() + "; it must be from 1 to " + epoch + ".");
      }
      if (removed.contains(node)) {
        throw new LayoutException(what + " must not be a removed node.");
      }
      if (node.equals(sequencer) && !rebuildingChains.containsKey(node)) {
        // A node that rebuilds only some chains keeps its other duties, sequencing among them.
        throw new LayoutException(
            what + " rebuilds every chain it is in; it must not be the sequencer.");
      }
      boolean inCurrent = false;
      for (List<Endpoint> chain : concat(current.log(), current.stream())) {
        inCurrent |= chain.contains(node);
      }
      boolean fromStreams = false;
      for (Segment s : segments) {
        List<List<Endpoint>> chains = concat(s.log(), s.stream());
        for (int c = 0; c < chains.size(); c++) {
          List<Endpoint> chain = chains.get(c);
          boolean last = !chain.isEmpty() && chain.get(chain.size() - 1).equals(node);
          // A closed segment's log chain it is alone in: rebuilt from the stream replicas (see
          // LostLogChains); it decides nothing there until it is promoted, and nobody else can.
          boolean lost = s != current && c < s.log().size() && chain.equals(List.of(node));
          fromStreams |= lost && !rebuildingChains.containsKey(node);
          if (last && !lost && !rebuildingChains.containsKey(node)) {
            throw new LayoutException(
                what + " is the last replica of a chain; a rebuilding replica never decides.");
          }
        }
      }
      if (!inCurrent && !fromStreams) {
        throw new LayoutException(what + " is in no chain of the current segment.");
      }
    }
    Set<Endpoint> seen = new HashSet<>();
    for (Endpoint spare : spares) {
      String what = "The layout's spare " + spare;
      if (!seen.add(spare)) {
        throw new LayoutException(what + " is listed twice.");
      }
      if (spare.equals(sequencer) || removed.contains(spare) || rebuilding.containsKey(spare)) {
        throw new LayoutException(what + " must not be the sequencer, removed or rebuilding.");
      }
      for (Segment s : segments) {
        for (List<Endpoint> chain : concat(s.log(), s.stream())) {
          if (chain.contains(spare)) {
            throw new LayoutException(what + " is in a chain; a spare holds no place yet.");
          }
        }
      }
    }
  }

  /**
   * Each {@code streamSince} entry names a non-empty stream chain of the current segment and an
   * epoch from 1 to the layout's; only a cluster-mode layout (R set) has any.
   */
  static void checkStreamChains(
      long epoch, List<Segment> segments, int replication, Map<Integer, Long> streamSince) {
    List<List<Endpoint>> stream = segments.get(segments.size() - 1).stream();
    for (Map.Entry<Integer, Long> e : streamSince.entrySet()) {
      String what = "The layout's streamSince entry for stream chain " + e.getKey();
      if (replication < 1) {
        throw new LayoutException(what + ": only a cluster layout (with replication) has one.");
      }
      if (e.getKey() == null || e.getKey() < 0 || e.getKey() >= stream.size()) {
        throw new LayoutException(
            what + ": the current segment has stream chains 0 to " + (stream.size() - 1) + ".");
      }
      if (stream.get(e.getKey()).isEmpty()) {
        throw new LayoutException(what + ": the chain is empty.");
      }
      if (e.getValue() == null || e.getValue() < 1 || e.getValue() > epoch) {
        throw new LayoutException(what + " must be an epoch from 1 to " + epoch + ".");
      }
    }
  }

  /**
   * {@code streamSplits} is 0, or, in a cluster-mode layout, at most 20 and such that the current
   * segment's stream chains are {@code 2^streamSplits} times a whole number of root chains.
   */
  static void checkStreamSplits(List<Segment> segments, int replication, int streamSplits) {
    if (streamSplits == 0) {
      return;
    }
    int chains = segments.get(segments.size() - 1).stream().size();
    if (streamSplits < 0 || streamSplits > 20) {
      throw new LayoutException(
          "The layout field 'streamSplits' must be from 0 to 20; it is " + streamSplits + ".");
    }
    if (replication < 1) {
      throw new LayoutException(
          "The layout field 'streamSplits' is set, but only a cluster layout (with replication)"
              + " splits its stream chains.");
    }
    if (chains == 0 || chains % (1 << streamSplits) != 0) {
      throw new LayoutException(
          "The current segment has "
              + chains
              + " stream chains, which "
              + streamSplits
              + " splits in two cannot have made: the count must be a multiple of "
              + (1 << streamSplits)
              + ".");
    }
  }

  /**
   * Every node being replaced has a rebuilding replacement: each key of {@code replacing} is a
   * rebuilding replica, and each value a node of the layout (in a chain of the current segment)
   * that is neither rebuilding, removed, nor replaced twice.
   */
  static void checkReplacing(
      List<Segment> segments,
      List<Endpoint> removed,
      Map<Endpoint, Long> rebuilding,
      Map<Endpoint, Endpoint> replacing) {
    Segment current = segments.get(segments.size() - 1);
    Set<Endpoint> replaced = new HashSet<>();
    for (Map.Entry<Endpoint, Endpoint> e : replacing.entrySet()) {
      String what = "The layout's replacing entry " + e.getKey() + " -> " + e.getValue();
      if (!rebuilding.containsKey(e.getKey())) {
        throw new LayoutException(what + ": the replacement must be a rebuilding replica.");
      }
      Endpoint old = e.getValue();
      if (rebuilding.containsKey(old) || removed.contains(old) || !replaced.add(old)) {
        throw new LayoutException(
            what + ": the node replaced must serve and be replaced by one node only.");
      }
      boolean inAny = false;
      for (Segment s : segments) {
        for (List<Endpoint> chain : concat(s.log(), s.stream())) {
          inAny |= chain.contains(old);
        }
      }
      if (!inAny) {
        throw new LayoutException(what + ": the node replaced is in no chain.");
      }
    }
  }

  /**
   * Every entry of {@code rebuildingChains} belongs to a rebuilding replica and names chains of the
   * current segment it is in, from the start of one of the segments, and it is the last replica of
   * none of the chains it rebuilds in any segment from there on (a rebuilding replica never
   * decides). A node that rebuilds every chain it is in is checked by {@link #checkHealing}.
   */
  static void checkRebuildingChains(
      List<Segment> segments,
      Map<Endpoint, Long> rebuilding,
      Map<Endpoint, JoinedChains> rebuildingChains,
      Map<Endpoint, Endpoint> replacing) {
    Segment current = segments.get(segments.size() - 1);
    for (Map.Entry<Endpoint, JoinedChains> e : rebuildingChains.entrySet()) {
      Endpoint node = e.getKey();
      JoinedChains joined = e.getValue();
      String what = "The layout's rebuilding chains of " + node;
      if (!rebuilding.containsKey(node)) {
        throw new LayoutException(what + ": the node is not a rebuilding replica.");
      }
      if (joined == null
          || joined.from() > current.start()
          || segments.stream().noneMatch(s -> s.start() == joined.from())) {
        throw new LayoutException(
            what + " must start where a segment starts, at or before the current segment.");
      }
      if (joined.log().isEmpty() && joined.stream().isEmpty() && !replacing.containsKey(node)) {
        throw new LayoutException(
            what + " name no chain; only a member draining another node's closed places may.");
      }
      checkJoined(what, "log", current.log(), joined.log(), node);
      checkJoined(what, "stream", current.stream(), joined.stream(), node);
      for (Segment s : segments) {
        for (int c = 0; c < s.log().size(); c++) {
          checkNotLast(what, s.log().get(c), node, joined.covers(s, true, c));
        }
        for (int c = 0; c < s.stream().size(); c++) {
          checkNotLast(what, s.stream().get(c), node, joined.covers(s, false, c));
        }
      }
    }
  }

  private static void checkJoined(
      String what, String kind, List<List<Endpoint>> chains, Set<Integer> joined, Endpoint node) {
    for (int c : joined) {
      if (c < 0 || c >= chains.size() || !chains.get(c).contains(node)) {
        throw new LayoutException(
            what + " name " + kind + " chain " + c + ", which the node is not in.");
      }
    }
  }

  private static void checkNotLast(
      String what, List<Endpoint> chain, Endpoint node, boolean rebuilds) {
    if (rebuilds && !chain.isEmpty() && chain.get(chain.size() - 1).equals(node)) {
      throw new LayoutException(
          what + " make it the last replica of a chain; a rebuilding replica never decides.");
    }
  }

  /**
   * Every draining node is listed once and is neither removed, a spare nor rebuilding. (It may hold
   * no place any more: between the change that took its last place and the one that removes it.)
   */
  static void checkDraining(
      Endpoint sequencer,
      List<Segment> segments,
      List<Endpoint> removed,
      List<Endpoint> spares,
      Map<Endpoint, Long> rebuilding,
      List<Endpoint> draining) {
    Set<Endpoint> seen = new HashSet<>();
    for (Endpoint node : draining) {
      String what = "The layout's draining node " + node;
      if (!seen.add(node)) {
        throw new LayoutException(what + " is listed twice.");
      }
      if (removed.contains(node) || spares.contains(node) || rebuilding.containsKey(node)) {
        throw new LayoutException(what + " must be neither removed, a spare nor rebuilding.");
      }
    }
  }

  /**
   * No chain has more than R replicas that serve; a chain may hold one more while a rebuilding
   * replica joins it to take a place another member leaves once it is promoted (growth, see {@link
   * LayoutChanges#withGrowth}).
   */
  private static void checkLength(
      String where,
      String kind,
      List<List<Endpoint>> chains,
      int replication,
      java.util.function.BiPredicate<Endpoint, Integer> rebuilds) {
    for (int c = 0; c < chains.size(); c++) {
      List<Endpoint> chain = chains.get(c);
      int index = c;
      long serving = chain.stream().filter(e -> !rebuilds.test(e, index)).count();
      if (serving > replication || chain.size() > replication + 1) {
        throw new LayoutException(
            where
                + " "
                + kind
                + " chain "
                + c
                + " has "
                + chain.size()
                + " replicas, more than the layout's replication "
                + replication
                + (chain.size() > serving
                    ? " (one more is allowed only while it is a rebuilding replica)."
                    : "."));
      }
    }
  }

  /** {@link Layout#rebuildsIn} before the layout exists. */
  static boolean rebuilds(
      Map<Endpoint, Long> rebuilding,
      Map<Endpoint, JoinedChains> rebuildingChains,
      Endpoint node,
      Segment segment,
      boolean log,
      int index) {
    if (!rebuilding.containsKey(node)) {
      return false;
    }
    JoinedChains joined = rebuildingChains.get(node);
    return joined == null || joined.covers(segment, log, index);
  }

  private static List<List<Endpoint>> concat(List<List<Endpoint>> a, List<List<Endpoint>> b) {
    List<List<Endpoint>> out = new java.util.ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
