package io.vcorfu.server.cluster;

import io.vcorfu.layout.ChainLostException;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LostLogChains;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which layout change the nodes the probes judge down call for, and committing it: their removal,
 * or, for a node back on a wiped data directory that held the only replica of some log chains,
 * rebuilding those chains from the stream replicas. A removal always goes before any other change.
 *
 * <p>A manager that fewer than half of the nodes answer does not trust silence alone: it may be the
 * one cut off. It removes only the silent nodes whose ZooKeeper session has ended too (the second
 * witness, see {@link NodeSessions}): a node cut off from this one but alive and connected to
 * ZooKeeper keeps its session, while a crashed one's ends within a session timeout. So the last
 * node standing of a chain's R replicas removes the R - 1 dead ones and serves, while a node cut
 * off from its peers but not from ZooKeeper removes nobody. Otherwise it steps down (leaves the
 * election and joins it again, last in line) when other nodes run for manager, so that such a node
 * does not hold the management, and with it every layout change, for as long as it is cut off.
 *
 * <p>Confined to the manager's thread.
 */
final class FailureChanges {
  // Logged as the manager: every line of the manager's decisions comes under one logger name.
  private static final Logger LOG = LoggerFactory.getLogger(ClusterManager.class);

  private final Endpoint self;
  private final ClusterConfig config;
  private final ZkLayoutStore store;
  private final NodeProbes probes;
  private final LayoutCommits commits;
  private final ChangeBackoff backoff;

  /** The manager's step-down (it runs under the manager's lock). */
  private final Runnable stepDown;

  /** Nodes reported as holding the only copy of some chain; confined (logged once each). */
  private final Set<Endpoint> reportedLost = new HashSet<>();

  FailureChanges(
      Endpoint self,
      ClusterConfig config,
      ZkLayoutStore store,
      NodeProbes probes,
      LayoutCommits commits,
      ChangeBackoff backoff,
      Runnable stepDown) {
    this.self = self;
    this.config = config;
    this.store = store;
    this.probes = probes;
    this.commits = commits;
    this.backoff = backoff;
    this.stepDown = stepDown;
  }

  /**
   * The change the failures seen at {@code now} call for, if any ({@code steady}: this node's
   * rounds have run on time long enough that it judges others; else it judges nobody down). True
   * when it made or tried one, or stepped down: nothing else is done this round.
   */
  boolean act(Versioned<Layout> current, boolean steady, long now) {
    Layout layout = current.value();
    List<Endpoint> silent = new ArrayList<>();
    List<Endpoint> lagging = new ArrayList<>();
    for (Endpoint node : layout.allServers()) {
      if (steady && probes.down(node, now)) {
        silent.add(node);
      } else if (steady && probes.lagging(node, now)) {
        lagging.add(node);
      }
    }
    List<Endpoint> removable = new ArrayList<>();
    List<Endpoint> down = new ArrayList<>(silent);
    down.addAll(lagging);
    for (Endpoint dead : down) {
      List<Endpoint> trial = new ArrayList<>(removable);
      trial.add(dead);
      try {
        LayoutCommits.without(layout, trial, 0);
        removable.add(dead);
      } catch (ChainLostException e) {
        if (reportedLost.add(dead)) {
          LOG.warn(
              "node {} is unresponsive but cannot be removed: {}; waiting for it to return",
              dead,
              e.getMessage());
        }
      }
    }
    reportedLost.retainAll(down);
    // A lagging node answers: it counts as heard, not as silent, whatever it serves.
    int answering = layout.allServers().size() - silent.size();
    if (2 * answering < layout.allServers().size()) {
      // Fewer than half of the nodes answer this manager: it may be the one cut off (or too slow)
      // rather than most of the cluster dead, so silence alone removes nobody. A silent node whose
      // ZooKeeper session has ended too is down whatever the count: a node cut off from this one
      // but alive keeps its session. The others stay, and the management goes to a node that may
      // hear more of them.
      List<Endpoint> sessionless = withoutSession(removable);
      if (!sessionless.isEmpty()) {
        LOG.warn(
            "manager {}: only {} of {} nodes answer, but {} hold no ZooKeeper session either:"
                + " down whatever the count",
            self,
            answering,
            layout.allServers().size(),
            sessionless);
        remove(current, sessionless);
        return true;
      }
      LOG.warn(
          "manager {}: only {} of {} nodes answer; not removing {}",
          self,
          answering,
          layout.allServers().size(),
          silent);
      stepDown.run();
      return true;
    }
    if (!removable.isEmpty()) {
      remove(current, removable);
      return true;
    }
    for (Endpoint dead : silent) {
      if (probes.wiped(dead, now) && !LostLogChains.heldAlone(layout, dead).isEmpty()) {
        rebuildFromStreams(current, dead);
        return true;
      }
    }
    return false;
  }

  /**
   * Those of {@code silent} that hold no ZooKeeper session ({@link NodeSessions}); none when
   * ZooKeeper cannot tell, or does not list this node's own session (its view is not to be trusted
   * then: this node's own session was lost, and the sessions it lists may be a new one's).
   */
  private List<Endpoint> withoutSession(List<Endpoint> silent) {
    if (silent.isEmpty()) {
      return List.of();
    }
    Set<Endpoint> live;
    try {
      live =
          NodeSessions.live(
              store.client(), config.name(), java.time.Duration.ofMillis(commits.timeoutMillis()));
    } catch (Exception e) {
      LOG.debug("manager {}: cannot learn who holds a ZooKeeper session: {}", self, e.toString());
      return List.of();
    }
    if (!live.contains(self)) {
      return List.of();
    }
    List<Endpoint> out = new ArrayList<>(silent);
    out.removeAll(live);
    return out;
  }

  /**
   * {@code node} came back wiped while it held the only replica of some log chains: the layout
   * makes it rebuild those chains from the stream replicas ({@link LostLogChains}), the current
   * segment closed above every global address any sealed replica holds.
   */
  private void rebuildFromStreams(Versioned<Layout> current, Endpoint node) {
    Layout layout = current.value();
    List<String> chains = new ArrayList<>();
    for (int[] sc : LostLogChains.heldAlone(layout, node)) {
      chains.add(
          "log chain " + sc[1] + " of the segment at " + layout.segments().get(sc[0]).start());
    }
    LOG.warn(
        "manager {}: {} came back on a wiped or replaced data directory; it held the only replica"
            + " of {}: rebuilding them from the stream replicas (epoch {} -> {}). Entries there"
            + " written to no stream, or whose stream chains were lost too, are lost.",
        self,
        node,
        chains,
        layout.epoch(),
        layout.epoch() + 1);
    try {
      long start = layout.currentSegment().start() + 1;
      commits.commitChange(
          current,
          tail -> LostLogChains.rebuiltFromStreams(layout, node, Math.max(start, tail + 1)),
          true);
      backoff.succeeded();
    } catch (Exception e) {
      backoff.failed("rebuilding the log chains of " + node + " from the stream replicas", e);
    }
  }

  /** Why the {@code dead} nodes count as down, for the log. */
  private String why(List<Endpoint> dead) {
    long now = System.nanoTime();
    List<String> reasons = new ArrayList<>();
    for (Endpoint node : dead) {
      reasons.add(node + " " + probes.whyDown(node, now));
    }
    return String.join(", ", reasons);
  }

  /**
   * Takes the {@code dead} nodes out of the layout in one change (see {@link LayoutCommits}),
   * logged as a warning: an operator sees every removal and why at the default level.
   */
  private void remove(Versioned<Layout> current, List<Endpoint> dead) {
    Layout layout = current.value();
    LOG.warn(
        "manager {}: {} down ({}); removing (epoch {} -> {})",
        self,
        dead,
        why(dead),
        layout.epoch(),
        layout.epoch() + 1);
    try {
      commits.commitWithout(current, dead, false);
      backoff.succeeded();
    } catch (Exception e) {
      backoff.failed("removing " + dead, e);
    }
  }
}
