package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Builds the first layout of a cluster for {@link LayoutChanges#initial}: checks the nodes and the
 * replication factor, then stripes the chains over the nodes. Every layout it returns is at epoch
 * 1, with one open segment from address 0 in which every chain has R replicas.
 */
final class InitialLayouts {
  private InitialLayouts() {}

  /** The first layout {@link LayoutChanges#initial(String, List, int, int)} describes. */
  static Layout initial(String clusterId, List<Endpoint> nodes, int replication, int streamChains) {
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

  /** The first layout {@link LayoutChanges#initial(String, List, List, int, int)} describes. */
  static Layout initial(
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
}
