package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where nodes sit in chains, for the layout changes that place them ({@link LayoutChanges}): who is
 * a member, how many chains each node is in, which member has the most, and chains laid out or
 * trimmed by those counts. Pure functions of their arguments; they never reorder a chain's
 * remaining members, so a chain keeps its survivors' order (see {@link LayoutChanges}).
 */
final class ChainPlacement {
  private ChainPlacement() {}

  /** Every node of {@code log} and {@code stream} chains, once each, in document order. */
  static List<Endpoint> members(List<List<Endpoint>> log, List<List<Endpoint>> stream) {
    Set<Endpoint> out = new java.util.LinkedHashSet<>();
    log.forEach(out::addAll);
    stream.forEach(out::addAll);
    return new ArrayList<>(out);
  }

  /** One chain per node: chain {@code i} is the {@code r} nodes from {@code nodes[i]} on. */
  static List<List<Endpoint>> striped(List<Endpoint> nodes, int r) {
    List<List<Endpoint>> out = new ArrayList<>(nodes.size());
    for (int i = 0; i < nodes.size(); i++) {
      List<Endpoint> chain = new ArrayList<>(r);
      for (int j = 0; j < Math.min(r, nodes.size()); j++) {
        chain.add(nodes.get((i + j) % nodes.size()));
      }
      out.add(chain);
    }
    return out;
  }

  /** How many of {@code chains} each node is in. */
  static Map<Endpoint, Integer> places(List<List<Endpoint>> chains) {
    Map<Endpoint, Integer> out = new HashMap<>();
    for (List<Endpoint> chain : chains) {
      for (Endpoint e : chain) {
        out.merge(e, 1, Integer::sum);
      }
    }
    return out;
  }

  /** The member of {@code chain} other than {@code except} with the most places; ties: the last. */
  static Endpoint mostPlaced(List<Endpoint> chain, Map<Endpoint, Integer> places, Endpoint except) {
    Endpoint best = null;
    for (Endpoint e : chain) {
      if (!e.equals(except) && (best == null || places.get(e) >= places.get(best))) {
        best = e;
      }
    }
    return best;
  }

  /**
   * {@code chains} with every chain longer than {@code r} that holds {@code node} short of one
   * member: its most-placed member other than {@code node} (see {@link #mostPlaced}).
   */
  static List<List<Endpoint>> trimmed(List<List<Endpoint>> chains, Endpoint node, int r) {
    if (r < 1) {
      return chains;
    }
    Map<Endpoint, Integer> places = places(chains);
    List<List<Endpoint>> out = new ArrayList<>(chains.size());
    for (List<Endpoint> chain : chains) {
      if (chain.size() > r && chain.contains(node)) {
        Endpoint leaving = mostPlaced(chain, places, node);
        places.merge(leaving, -1, Integer::sum);
        out.add(chain.stream().filter(e -> !e.equals(leaving)).toList());
      } else {
        out.add(chain);
      }
    }
    return out;
  }

  /** True when {@code node} is in a log chain of {@code s} ({@code log}), else a stream chain. */
  static boolean servesKind(Segment s, Endpoint node, boolean log) {
    return (log ? s.log() : s.stream()).stream().anyMatch(c -> c.contains(node));
  }
}
