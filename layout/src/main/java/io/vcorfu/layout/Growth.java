package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Growth of a cluster by a new node ({@link LayoutChanges#withGrowth}): splits the stream chains
 * when the grown cluster would have more nodes than stream chains, and joins the node, as a
 * rebuilding replica, to the chains whose members have the most places. A split gives chain {@code
 * i} of {@code P} a child {@code i + P} with the same members in the same order, so no entry's plan
 * changes its deciding replica or the order of its chains.
 */
final class Growth {
  private Growth() {}

  /** {@code layout} grown by {@code node}, as {@link LayoutChanges#withGrowth} describes. */
  static Layout withGrowth(Layout layout, Endpoint node, long newSegmentStart) {
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
    NodeJoins.checkNoDrain(layout, "the cluster grows");
    if (!LayoutChanges.underReplicated(layout).isEmpty()) {
      throw new IllegalArgumentException(
          "Chains "
              + LayoutChanges.underReplicated(layout)
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
    NodeJoins.opened(segments, newSegmentStart, current.log(), stream);
    return NodeJoins.joining(layout, node, segments, true, null, since, splits);
  }
}
