package io.vcorfu.server.cluster;

import io.vcorfu.layout.ChainLostException;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.MemberChanges;
import io.vcorfu.layout.Versioned;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which layout change a client's request to add, replace or remove a node calls for, and committing
 * it: a spare, growth ({@link LayoutChanges#withGrowth}), a drain onto a new node or a spare
 * ({@link LayoutChanges#withReplacement}), a drain onto the other nodes ({@link
 * MemberChanges#withDraining}) or a planned removal. It refuses, with a {@link BadRequestException}
 * and nothing changed, what the layout does not allow. Each change runs on the manager's thread
 * through {@link RequestedChanges}; the public entry points stay on {@link ClusterManager}.
 */
final class NodeChangeRequests {
  // Logged as the manager: every line of the manager's decisions comes under one logger name.
  private static final Logger LOG = LoggerFactory.getLogger(ClusterManager.class);

  private final Endpoint self;
  private final ClusterConfig config;
  private final NodeCalls calls;
  private final NodeProbes probes;
  private final LayoutCommits commits;
  private final ChangeBackoff backoff;
  private final RequestedChanges requests;

  NodeChangeRequests(
      Endpoint self,
      ClusterConfig config,
      NodeCalls calls,
      NodeProbes probes,
      LayoutCommits commits,
      ChangeBackoff backoff,
      RequestedChanges requests) {
    this.self = self;
    this.config = config;
    this.calls = calls;
    this.probes = probes;
    this.commits = commits;
    this.backoff = backoff;
    this.requests = requests;
  }

  /** {@link ClusterManager#removeOnRequest}. */
  CompletableFuture<Layout> remove(Endpoint leaving) {
    return requests.onRequest("removing " + leaving, current -> removeNow(leaving, current));
  }

  private Layout removeNow(Endpoint leaving, Versioned<Layout> current) throws Exception {
    Layout layout = current.value();
    if (!layout.allServers().contains(leaving)) {
      throw new BadRequestException(
          "Node "
              + leaving
              + " is not in the layout of cluster "
              + layout.clusterId()
              + " (epoch "
              + layout.epoch()
              + (layout.removed().contains(leaving) ? "; it was removed earlier)." : ")."));
    }
    if (layout.rebuilding().isEmpty() && !layout.isRebuilding(leaving)) {
      long now = System.nanoTime();
      for (Endpoint spare : layout.spares()) {
        if (probes.answering(spare, now)) {
          // Planned: drained onto the spare first, so no chain serves with fewer replicas.
          return drain(current, leaving, spare);
        }
      }
    }
    if (!layout.isRebuilding(leaving)
        && !layout.draining().contains(leaving)
        && layout.replication() > 0
        && MemberChanges.holdsAPlace(layout.currentSegment(), leaving)) {
      long now = System.nanoTime();
      // The others can take every place only if at least R of them answer (and leave no other).
      long others =
          layout.allServers().stream()
              .filter(
                  e ->
                      !e.equals(leaving)
                          && !layout.draining().contains(e)
                          && probes.answering(e, now))
              .count();
      for (Endpoint member : layout.allServers()) {
        if (others >= layout.replication()
            && !member.equals(leaving)
            && probes.answering(member, now)
            && !MemberChanges.drainTakes(layout, member, leaving).isEmpty()) {
          // Planned, with no spare: the other nodes take its places one at a time first.
          Layout next = MemberChanges.withDraining(layout, leaving);
          commits.compareAndSet(current, next);
          LOG.info(
              "manager {}: draining {} onto the other nodes; it serves until they hold its"
                  + " places (epoch {})",
              self,
              leaving,
              next.epoch());
          backoff.succeeded();
          return next;
        }
      }
    }
    if (layout.draining().contains(leaving)) {
      return layout; // asked again: the drain goes on
    }
    Layout trial;
    try {
      trial = LayoutCommits.without(layout, List.of(leaving), 0);
    } catch (ChainLostException e) {
      throw new BadRequestException("Node " + leaving + " cannot be removed: " + e.getMessage());
    }
    List<Integer> emptied = new ArrayList<>(LayoutChanges.emptyStreamChains(trial));
    emptied.removeAll(LayoutChanges.emptyStreamChains(layout));
    if (!emptied.isEmpty()) {
      // A failure may leave a stream chain to the log (degraded mode); a planned removal does not.
      throw new BadRequestException(
          "Node "
              + leaving
              + " cannot be removed: it is the only replica of stream chains "
              + emptied
              + ", whose streams would then be read from the log alone. Add a spare first"
              + " (remove-node then drains the node onto it), or use replace-node.");
    }
    LOG.info(
        "manager {}: removing {} on request (epoch {} -> {})",
        self,
        leaving,
        layout.epoch(),
        layout.epoch() + 1);
    Layout next = commits.commitWithout(current, List.of(leaving), true);
    backoff.succeeded();
    return next;
  }

  /** {@link ClusterManager#addOnRequest(Endpoint, boolean, Endpoint)}. */
  CompletableFuture<Layout> add(Endpoint node, boolean grow, Endpoint replaces) {
    // The node is asked first, off the manager's thread: a node still starting may take seconds
    // to answer, and the manager's thread must not wait for it (failure detection runs there).
    return calls
        .ping(node)
        .orTimeout(ADD_PING_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .handle(
            (answer, error) -> {
              if (error != null) {
                return CompletableFuture.<Layout>failedFuture(
                    new BadRequestException(
                        "Node "
                            + node
                            + " does not answer ("
                            + ChangeBackoff.unwrap(error)
                            + "); start it first."));
              }
              if (replaces != null) {
                return requests.onRequest(
                    "replacing " + replaces + " by " + node,
                    current -> replaceNow(replaces, node, answer, current));
              }
              return requests.onRequest(
                  (grow ? "growing the cluster by " : "adding ") + node,
                  current -> addNow(node, grow, answer, current));
            })
        .thenCompose(f -> f);
  }

  /** How long a node to add has to answer its first ping. */
  private static final long ADD_PING_TIMEOUT_MS = 10_000;

  /** Checks that the node to add answered as a node of this cluster. */
  private void checkCluster(Endpoint node, PingResponse answer) {
    if (!answer.getCluster().equals(config.name())) {
      throw new BadRequestException(
          "Node "
              + node
              + (answer.getCluster().isEmpty()
                  ? " is not a cluster node (start it with --zookeeper and --cluster "
                  : " belongs to cluster '" + answer.getCluster() + "', not '")
              + config.name()
              + (answer.getCluster().isEmpty() ? ")." : "'."));
    }
  }

  private Layout replaceNow(
      Endpoint old, Endpoint node, PingResponse answer, Versioned<Layout> current)
      throws Exception {
    checkCluster(node, answer);
    return drain(current, old, node);
  }

  /**
   * Commits {@link LayoutChanges#withReplacement}: {@code node} joins {@code old}'s chains as a
   * rebuilding replica; the healing round that promotes it takes {@code old} out.
   */
  private Layout drain(Versioned<Layout> current, Endpoint old, Endpoint node) throws Exception {
    Layout layout = current.value();
    try {
      LayoutChanges.withReplacement(layout, old, node, 0); // refuses before any seal
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(
          "Node " + old + " cannot be replaced by " + node + ": " + e.getMessage());
    }
    LOG.info(
        "manager {}: draining {} onto {}: {} joins its chains as a rebuilding replica and {}"
            + " leaves when {} is promoted (epoch {} -> {})",
        self,
        old,
        node,
        node,
        old,
        node,
        layout.epoch(),
        layout.epoch() + 1);
    Layout next =
        commits.commitChange(
            current, tail -> LayoutChanges.withReplacement(layout, old, node, tail + 1));
    backoff.succeeded();
    return next;
  }

  private Layout addNow(Endpoint node, boolean grow, PingResponse answer, Versioned<Layout> current)
      throws Exception {
    Layout layout = current.value();
    if (layout.allServers().contains(node) || layout.spares().contains(node)) {
      throw new BadRequestException(
          "Node "
              + node
              + " is "
              + (layout.spares().contains(node) ? "a spare" : "in the layout")
              + " of cluster "
              + layout.clusterId()
              + " already (epoch "
              + layout.epoch()
              + ").");
    }
    checkCluster(node, answer);
    if (grow && LayoutChanges.underReplicated(layout).isEmpty()) {
      try {
        LayoutChanges.withGrowth(layout, node, 0); // refuses what cannot grow, before any seal
      } catch (IllegalArgumentException e) {
        throw new BadRequestException(
            "Node " + node + " cannot grow the cluster: " + e.getMessage());
      }
      LOG.info(
          "manager {}: growing the cluster by {} (epoch {} -> {})",
          self,
          node,
          layout.epoch(),
          layout.epoch() + 1);
      Layout next =
          commits.commitChange(current, tail -> LayoutChanges.withGrowth(layout, node, tail + 1));
      backoff.succeeded();
      return next;
    }
    Layout next = LayoutChanges.withSpare(layout, node);
    commits.compareAndSet(current, next);
    LOG.info("manager {}: added {} as a spare (epoch {})", self, node, next.epoch());
    return next;
  }
}
