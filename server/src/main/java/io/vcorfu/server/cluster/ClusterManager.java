package io.vcorfu.server.cluster;

import io.vcorfu.layout.ChainLostException;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutVersionMismatchException;
import io.vcorfu.layout.LostLogChains;
import io.vcorfu.layout.MemberChanges;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.SealResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's manager: every node runs for it (a Curator {@link LeaderLatch}); the leader probes
 * every node of the layout and, when one is down, takes it out of the layout. A node is down when
 * it stays silent past the failure timeout (a paused, cut-off or crashed node looks like this), or
 * at once when its port refuses connections (its process is gone; a paused or cut-off process would
 * not refuse), or when it answers that its data directory is not the one the layout counts on (see
 * {@link NodeIdentity}); {@link NodeProbes} keeps what the probes heard and judges it. Every node
 * probes too, and acts in the leader's place while the leader itself is silent (its election
 * outlives it by a ZooKeeper session timeout).
 *
 * <p>Leadership decides only who acts. Safety comes from sealing and the compare-and-set on the
 * layout znode: a change (1) reads the layout and its version, (2) seals the next epoch on every
 * node that stays, learning their log tails once every older-epoch write they admitted has
 * finished, (3) closes the current segment after the highest of those tails and (4) commits the new
 * layout with a compare-and-set at the version read. Two managers at once may both seal (epochs
 * only grow, sealing twice is harmless) but only one compare-and-set at a version succeeds; the
 * loser re-reads and decides again. One change at a time; a failed attempt is retried on a later
 * probe round, with back-off, from a fresh read of the layout.
 *
 * <p>A node sealed ahead of the agreed layout (a manager died between sealing and committing) is
 * unstuck by committing the agreed layout again at that node's sealed epoch.
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
 * <p>It also heals (see docs/cluster.md, "Healing"), one step per round as {@link HealingPlan}
 * decides: it promotes rebuilding replicas whose copy finished, restores short chains with a spare
 * or a returning node ({@link LayoutChanges#withRebuilding}) or, after {@link
 * ClusterConfig#memberHealDelay()}, with a node already in the cluster ({@link
 * MemberChanges#withMemberRebuilding}), and drains nodes leaving on request onto the others. Each
 * step is a layout change like a removal: seal the next epoch on every node of the new layout, then
 * compare-and-set. A removal always goes first.
 *
 * <p>All decisions run on the manager's one thread.
 */
public final class ClusterManager implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterManager.class);

  private final Endpoint self;
  private final ClusterConfig config;
  private final ZkLayoutStore store;
  private final NodeCalls calls;
  private final ScheduledExecutorService thread;
  private final String participant;

  /** This node's place in the election; replaced when the manager steps down (guarded by this). */
  private volatile LeaderLatch latch;

  private boolean closed;

  /** What the probes heard of each node; on the manager's thread. */
  private final NodeProbes probes;

  /** Nodes reported as holding the only copy of some chain; confined (logged once each). */
  private final Set<Endpoint> reportedLost = new HashSet<>();

  /** The healing decisions (and when chains were first seen short); on the manager's thread. */
  private final HealingPlan healing;

  private boolean leading;

  /** How punctually this node's own rounds ran; confined. */
  private final SelfTiming timing;

  /** The manager's clock, {@code System.nanoTime()}. */
  private final LongSupplier clock = System::nanoTime;

  private long backoffUntilNanos;
  private long backoffMillis;

  private ClusterManager(
      Endpoint self, ClusterConfig config, ZkLayoutStore store, NodeCalls calls) {
    this.self = self;
    this.config = config;
    this.healing = new HealingPlan(config.memberHealDelay());
    this.store = store;
    this.calls = calls;
    this.probes = new NodeProbes(config, calls, clock);
    this.timing = new SelfTiming(config.probeInterval(), config.failureTimeout());
    this.participant = self + "#" + java.util.UUID.randomUUID();
    this.latch = newLatch();
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cluster-manager");
              t.setDaemon(true);
              return t;
            });
  }

  /** Runs for manager of {@code config}'s cluster as {@code self}. */
  public static ClusterManager start(
      Endpoint self, ClusterConfig config, ZkLayoutStore store, NodeCalls calls) {
    ClusterManager m = new ClusterManager(self, config, store, calls);
    try {
      m.latch.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot run for manager of cluster " + config.name(), e);
    }
    m.thread.scheduleWithFixedDelay(
        m::round, 0, config.probeInterval().toMillis(), TimeUnit.MILLISECONDS);
    return m;
  }

  private LeaderLatch newLatch() {
    return new LeaderLatch(store.client(), "/vcorfu/" + config.name() + "/manager", participant);
  }

  /**
   * This manager's name in the election: its endpoint and an id of this process's run ({@code
   * host:port#run}), so that a node restarted at the same endpoint is told apart from the run that
   * may still hold the election until its ZooKeeper session expires. Nodes say it in their ping
   * answers.
   */
  public String participant() {
    return participant;
  }

  /** True while this node is the manager. */
  public boolean leading() {
    return latch.hasLeadership();
  }

  private void round() {
    try {
      boolean leader = latch.hasLeadership();
      if (leader != leading) {
        LOG.info(
            "node {} {} the manager of cluster {}",
            self,
            leader ? "is" : "is no longer",
            config.name());
        leading = leader;
      }
      // A round that ran late discards what the probes heard, and the node re-measures before it
      // judges anyone again (see SelfTiming): a manager never judges others by its own slowness.
      long start = clock.getAsLong();
      boolean wasSteady = timing.steady(start);
      if (!timing.startedOnTime(start)) {
        late(wasSteady);
      }
      Versioned<Layout> current = store.get().get(timeoutMillis(), TimeUnit.MILLISECONDS);
      long probing = clock.getAsLong();
      probes.probe(current.value(), thread);
      long waited = clock.getAsLong();
      wasSteady = timing.steady(waited);
      if (!timing.probedOnTime(probing, waited)) {
        late(wasSteady);
      }
      if (timing.unsteadyTooLong(waited)) {
        if (leader) {
          LOG.warn(
              "manager {}: its own probe rounds keep running late (this process is starved of"
                  + " processor time or paused); it cannot judge the other nodes",
              self);
          stepDown();
        }
        return;
      }
      if (!timing.steady(waited)) {
        // Not judging, but a leader still heals and recommits.
        if (leader && System.nanoTime() - backoffUntilNanos >= 0) {
          act(current, false);
        }
        return;
      }
      if (!leader && !leaderGone(current.value())) {
        return;
      }
      if (System.nanoTime() - backoffUntilNanos < 0) {
        return;
      }
      act(current, true);
    } catch (Exception e) {
      LOG.debug("manager round failed: {}", e.toString());
    } finally {
      timing.ended(clock.getAsLong());
    }
  }

  /**
   * This node's own round ran late: what its probes heard is forgotten ({@code wasSteady}: its
   * rounds had run on time until then).
   */
  private void late(boolean wasSteady) {
    if (leading && wasSteady) {
      LOG.info(
          "manager {}: its own probe round ran late (this process was not running); discarding"
              + " what its probes heard, and judging nobody until its rounds run on time again",
          self);
    }
    probes.forget();
  }

  /**
   * True when the elected manager cannot act: no node leads, or the leader is not in the layout, or
   * has not answered for the failure timeout, or its endpoint answers as another run of the node
   * (it was restarted: the run that won the election is gone). Its election lasts until its
   * ZooKeeper session expires, which may be much longer; meanwhile every node that sees it gone
   * acts in its place (acting at once is safe, see the class comment).
   */
  private boolean leaderGone(Layout layout) {
    String id;
    Endpoint leader;
    try {
      id = latch.getLeader().getId();
      int run = id.indexOf('#');
      leader = Endpoint.parse(run < 0 ? id : id.substring(0, run));
    } catch (Exception e) {
      return true;
    }
    if (!layout.allServers().contains(leader)) {
      return true;
    }
    PingResponse answer = probes.answer(leader);
    if (answer != null && !answer.getManager().isEmpty() && !answer.getManager().equals(id)) {
      return true;
    }
    return probes.probed(leader) && probes.down(leader, System.nanoTime());
  }

  private long timeoutMillis() {
    return Math.max(1000, config.failureTimeout().toMillis());
  }

  /**
   * One round's decisions; {@code steady}: this node's rounds have run on time long enough that it
   * judges others (else it removes nobody, and only heals and recommits).
   */
  private void act(Versioned<Layout> current, boolean steady) {
    Layout layout = current.value();
    long now = System.nanoTime();
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
        without(layout, trial, 0);
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
        return;
      }
      LOG.warn(
          "manager {}: only {} of {} nodes answer; not removing {}",
          self,
          answering,
          layout.allServers().size(),
          silent);
      stepDown();
      return;
    }
    if (!removable.isEmpty()) {
      remove(current, removable);
      return;
    }
    for (Endpoint dead : silent) {
      if (probes.wiped(dead, now) && !LostLogChains.heldAlone(layout, dead).isEmpty()) {
        rebuildFromStreams(current, dead);
        return;
      }
    }
    long sealedAhead = probes.highestSealedEpoch(layout.epoch());
    if (sealedAhead > layout.epoch()) {
      recommit(current, sealedAhead);
      return;
    }
    heal(current, now);
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
              store.client(), config.name(), java.time.Duration.ofMillis(timeoutMillis()));
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
   * One healing step, if one is due: promotes a rebuilding replica whose copy finished against this
   * epoch, or else joins an answering spare or removed node to the chains that lack a replica.
   */
  private void heal(Versioned<Layout> current, long now) {
    HealingPlan.Step step = healing.next(current.value(), now, probes.asOf(now));
    if (step != null) {
      LOG.info("manager {}: {}", self, step.why());
      healingStep(current, step.what(), step.change());
    }
  }

  /** Commits one healing change, recording its success or failure (see {@link #failed}). */
  private void healingStep(
      Versioned<Layout> current, String what, java.util.function.LongFunction<Layout> change) {
    try {
      commitChange(current, change);
      succeeded();
    } catch (Exception e) {
      failed(what, e);
    }
  }

  /**
   * Commits {@code change} applied to {@code current}'s layout: seals its epoch on every node of
   * the new layout (computed first with a log tail of -1 to learn who they are; the nodes it adds
   * first of all, so that one that does not answer seals nobody else), learns the highest log tail
   * of the current layout's log replicas, and compare-and-sets the change computed with that tail.
   */
  private Layout commitChange(
      Versioned<Layout> current, java.util.function.LongFunction<Layout> change) throws Exception {
    return commitChange(current, change, false);
  }

  /**
   * {@link #commitChange(Versioned, java.util.function.LongFunction)}; with {@code anyReplica} the
   * tail is the highest global address any sealed replica holds, log or streams.
   */
  private Layout commitChange(
      Versioned<Layout> current, java.util.function.LongFunction<Layout> change, boolean anyReplica)
      throws Exception {
    Layout layout = current.value();
    Layout trial = change.apply(-1);
    // First the nodes that join: when one does not answer, the change fails before any node the
    // writers use is sealed (sealed, they would refuse every write until their layout was
    // committed again at the new epoch).
    Set<Endpoint> joining = new java.util.LinkedHashSet<>(trial.allServers());
    joining.removeAll(layout.allServers());
    if (!joining.isEmpty()) {
      sealAll(joining, trial.epoch(), Set.of(), anyReplica);
    }
    // Every node of either layout: one that leaves a chain (growth) finishes its writes first.
    Set<Endpoint> sealed = new java.util.LinkedHashSet<>(trial.allServers());
    sealed.addAll(layout.allServers());
    long logTail =
        sealAll(sealed, trial.epoch(), anyReplica ? sealed : layout.logServers(), anyReplica);
    Layout next = change.apply(logTail);
    store.compareAndSet(current.version(), next).get(timeoutMillis(), TimeUnit.MILLISECONDS);
    LOG.info(
        "manager {}: committed the layout of epoch {} (rebuilding {}, spares {})",
        self,
        next.epoch(),
        next.rebuilding().keySet(),
        next.spares());
    return next;
  }

  /**
   * Adds {@code node} as a spare (see {@code AddNodeRequest}), one change at a time with the
   * others: it must answer a ping and must not be in the layout or a spare already. The manager
   * joins it to chains that lack a replica on a later round. Completes with the layout committed.
   */
  public CompletableFuture<Layout> addOnRequest(Endpoint node) {
    return addOnRequest(node, false);
  }

  /**
   * Adds {@code node} as {@link #addOnRequest(Endpoint)} does, or with {@code grow} makes it take a
   * share of the cluster's replicas at once ({@link LayoutChanges#withGrowth}: a layout change like
   * a healing one, sealed first), unless a chain lacks a replica (then it is added as a spare,
   * which restores the chain). Refused while a replica is rebuilding: the cluster grows by one node
   * at a time.
   */
  public CompletableFuture<Layout> addOnRequest(Endpoint node, boolean grow) {
    return addOnRequest(node, grow, null);
  }

  /**
   * Adds {@code node} as {@link #addOnRequest(Endpoint, boolean)} does or, with {@code replaces},
   * as that node's replacement ({@link LayoutChanges#withReplacement}: a drain; the old node leaves
   * when the new one is promoted). Refused while a replica is rebuilding.
   */
  public CompletableFuture<Layout> addOnRequest(Endpoint node, boolean grow, Endpoint replaces) {
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
                            + unwrap(error)
                            + "); start it first."));
              }
              if (replaces != null) {
                return onRequest(
                    "replacing " + replaces + " by " + node,
                    current -> replaceNow(replaces, node, answer, current));
              }
              return onRequest(
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
        commitChange(current, tail -> LayoutChanges.withReplacement(layout, old, node, tail + 1));
    succeeded();
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
      Layout next = commitChange(current, tail -> LayoutChanges.withGrowth(layout, node, tail + 1));
      succeeded();
      return next;
    }
    Layout next = LayoutChanges.withSpare(layout, node);
    store.compareAndSet(current.version(), next).get(timeoutMillis(), TimeUnit.MILLISECONDS);
    LOG.info("manager {}: added {} as a spare (epoch {})", self, node, next.epoch());
    return next;
  }

  /** A change asked for by a client, computed and committed by {@code attempt}. */
  private interface RequestedChange {
    Layout attempt(Versioned<Layout> current) throws Exception;
  }

  /**
   * Runs {@code change} on the manager's thread, one change at a time with the failure handling,
   * from a fresh read of the layout; a lost compare-and-set is retried (ten times at most). A
   * {@link BadRequestException} fails the request at once, with nothing changed.
   */
  private CompletableFuture<Layout> onRequest(String what, RequestedChange change) {
    CompletableFuture<Layout> result = new CompletableFuture<>();
    Runnable run =
        () -> {
          int timeouts = 0;
          for (int attempt = 0; attempt < 10; attempt++) {
            try {
              Versioned<Layout> current = store.get().get(timeoutMillis(), TimeUnit.MILLISECONDS);
              result.complete(change.attempt(current));
              return;
            } catch (BadRequestException e) {
              result.completeExceptionally(e);
              return;
            } catch (Exception e) {
              Throwable cause = unwrap(e);
              // A lost compare-and-set is tried again from a fresh read; so, three times, is a
              // node too slow to answer its seal (a change that sealed some nodes and then failed
              // leaves them sealed ahead, which the next change or round commits).
              boolean slow =
                  cause instanceof java.util.concurrent.TimeoutException
                      || cause instanceof TransportException;
              if (!(cause instanceof LayoutVersionMismatchException)
                  && !(slow && ++timeouts <= 3)) {
                result.completeExceptionally(cause);
                return;
              }
            }
          }
          result.completeExceptionally(
              new IllegalStateException("the layout kept changing; " + what + " gave up"));
        };
    try {
      thread.execute(run);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      result.completeExceptionally(new IllegalStateException("the node is shutting down", e));
    }
    return result;
  }

  /**
   * {@code layout} at the next epoch without every node of {@code dead}, the current segment closed
   * at {@code newSegmentStart} (see {@link LayoutChanges#withoutNode}).
   */
  private static Layout without(Layout layout, List<Endpoint> dead, long newSegmentStart) {
    Layout next = layout;
    for (int i = 0; i < dead.size(); i++) {
      next = LayoutChanges.withoutNode(next, dead.get(i), i == 0 ? newSegmentStart : 0);
    }
    return next.withEpoch(layout.epoch() + 1);
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
      commitChange(
          current,
          tail -> LostLogChains.rebuiltFromStreams(layout, node, Math.max(start, tail + 1)),
          true);
      succeeded();
    } catch (Exception e) {
      failed("rebuilding the log chains of " + node + " from the stream replicas", e);
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

  /** Takes the {@code dead} nodes out of the layout in one change (see the class comment). */
  private void remove(Versioned<Layout> current, List<Endpoint> dead) {
    Layout layout = current.value();
    LOG.info(
        "manager {}: {} down ({}); removing (epoch {} -> {})",
        self,
        dead,
        why(dead),
        layout.epoch(),
        layout.epoch() + 1);
    try {
      commitWithout(current, dead, false);
      succeeded();
    } catch (Exception e) {
      failed("removing " + dead, e);
    }
  }

  /**
   * Seals the next epoch on every node that stays (and, with {@code sealLeaving}, on each of {@code
   * leaving} that answers: a planned removal, whose admitted writes finish first and whose log tail
   * counts), closes the current segment after the highest log tail and commits the layout without
   * {@code leaving} by compare-and-set at {@code current}'s version. Returns the committed layout.
   */
  private Layout commitWithout(
      Versioned<Layout> current, List<Endpoint> leaving, boolean sealLeaving) throws Exception {
    Layout layout = current.value();
    Layout survivors = without(layout, leaving, 0);
    long epoch = survivors.epoch();
    long logTail = sealAll(survivors.allServers(), epoch, survivors.logServers());
    if (sealLeaving) {
      for (Endpoint node : leaving) {
        try {
          SealResponse r = calls.seal(node, epoch).get(timeoutMillis(), TimeUnit.MILLISECONDS);
          if (layout.logServers().contains(node)) {
            logTail = Math.max(logTail, r.getLogTail());
          }
        } catch (Exception e) {
          // Gone meanwhile: removed as a failed node would be.
          LOG.info("manager {}: {} did not answer its seal: {}", self, node, e.toString());
        }
      }
    }
    Layout next = without(layout, leaving, logTail + 1);
    if (sealLeaving) {
      // Left on request: listed as retired, so that healing does not bring it back.
      for (Endpoint node : leaving) {
        next = LayoutChanges.retired(next, node);
      }
    }
    store.compareAndSet(current.version(), next).get(timeoutMillis(), TimeUnit.MILLISECONDS);
    LOG.info(
        "manager {}: committed the layout of epoch {} without {} (sequencer {}, new segment at {})",
        self,
        next.epoch(),
        leaving,
        next.sequencer(),
        logTail + 1);
    return next;
  }

  /**
   * A planned removal (see {@code RemoveNodeRequest}): when a spare answers and no replica is
   * rebuilding, drains {@code leaving} onto the spare ({@link LayoutChanges#withReplacement}; the
   * node leaves when the spare is promoted) and completes with that layout. Otherwise takes {@code
   * leaving} out of the layout as a failure would, except that the leaving node, still up, is
   * sealed too, so every write it admitted finishes before the change and its log tail counts. Runs
   * on the manager's thread, one change at a time with the failure handling; a lost compare-and-set
   * is retried from a fresh read. Fails with {@link BadRequestException} when the node is not in
   * the layout or removing it would leave a chain without replicas.
   */
  public CompletableFuture<Layout> removeOnRequest(Endpoint leaving) {
    return onRequest("removing " + leaving, current -> removeNow(leaving, current));
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
          store.compareAndSet(current.version(), next).get(timeoutMillis(), TimeUnit.MILLISECONDS);
          LOG.info(
              "manager {}: draining {} onto the other nodes; it serves until they hold its"
                  + " places (epoch {})",
              self,
              leaving,
              next.epoch());
          succeeded();
          return next;
        }
      }
    }
    if (layout.draining().contains(leaving)) {
      return layout; // asked again: the drain goes on
    }
    Layout trial;
    try {
      trial = without(layout, List.of(leaving), 0);
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
    Layout next = commitWithout(current, List.of(leaving), true);
    succeeded();
    return next;
  }

  /** Commits the agreed layout again at {@code epoch}, where some node is already sealed. */
  private void recommit(Versioned<Layout> current, long epoch) {
    Layout layout = current.value();
    LOG.info(
        "manager {}: a node is sealed at epoch {} but the agreed layout is at epoch {};"
            + " committing the layout again at epoch {}",
        self,
        epoch,
        layout.epoch(),
        epoch);
    try {
      sealAll(layout.allServers(), epoch, layout.logServers());
      store
          .compareAndSet(current.version(), layout.withEpoch(epoch))
          .get(timeoutMillis(), TimeUnit.MILLISECONDS);
      succeeded();
    } catch (Exception e) {
      failed("committing epoch " + epoch, e);
    }
  }

  /**
   * Seals {@code epoch} on every node of {@code nodes}; returns the highest log tail reported by
   * {@code logServers}. Fails if any node does not answer or is sealed further already.
   */
  private long sealAll(Set<Endpoint> nodes, long epoch, Set<Endpoint> logServers) throws Exception {
    return sealAll(nodes, epoch, logServers, false);
  }

  /**
   * Seals {@code epoch} on every node of {@code nodes}; returns the highest log tail of {@code
   * logServers} or, with {@code anyReplica}, the highest global address any of their replicas holds
   * (log or streams).
   */
  private long sealAll(
      Set<Endpoint> nodes, long epoch, Set<Endpoint> logServers, boolean anyReplica)
      throws Exception {
    Map<Endpoint, CompletableFuture<SealResponse>> seals = new HashMap<>();
    for (Endpoint n : nodes) {
      seals.put(n, calls.seal(n, epoch));
    }
    CompletableFuture.allOf(seals.values().toArray(CompletableFuture[]::new))
        .get(timeoutMillis(), TimeUnit.MILLISECONDS);
    long tail = -1;
    for (Map.Entry<Endpoint, CompletableFuture<SealResponse>> e : seals.entrySet()) {
      SealResponse r = e.getValue().join();
      if (r.getEpoch() > epoch) {
        throw new IllegalStateException(
            "node " + e.getKey() + " is sealed at epoch " + r.getEpoch() + " already");
      }
      if (logServers.contains(e.getKey())) {
        tail =
            Math.max(
                tail, anyReplica ? Math.max(r.getLogTail(), r.getMaxGlobal()) : r.getLogTail());
      }
    }
    return tail;
  }

  /**
   * Leaves the election and joins it again, last in line, if another node runs for manager; else
   * stays (no node could do better).
   */
  private synchronized void stepDown() {
    if (closed) {
      return;
    }
    try {
      if (latch.getParticipants().size() < 2) {
        return;
      }
      LeaderLatch next = newLatch();
      next.start();
      LeaderLatch old = latch;
      latch = next;
      old.close();
      LOG.warn("manager {}: stepped down, so that a node that hears more nodes manages", self);
    } catch (Exception e) {
      LOG.warn("manager {}: could not step down: {}", self, e.toString());
    }
  }

  private void succeeded() {
    backoffMillis = 0;
    backoffUntilNanos = System.nanoTime();
  }

  /** {@code e} without the future wrappers around it. */
  private static Throwable unwrap(Throwable e) {
    Throwable cause = e;
    while ((cause instanceof CompletionException
            || cause instanceof java.util.concurrent.ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private void failed(String what, Exception e) {
    Throwable cause = unwrap(e);
    backoffMillis =
        Math.min(5_000, backoffMillis == 0 ? config.probeInterval().toMillis() : backoffMillis * 2);
    backoffUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMillis);
    if (cause instanceof LayoutVersionMismatchException) {
      LOG.info("manager {}: {} lost to a concurrent change; re-reading the layout", self, what);
    } else {
      LOG.warn(
          "manager {}: {} failed ({}); retrying in {} ms",
          self,
          what,
          cause.toString(),
          backoffMillis);
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      synchronized (this) {
        closed = true;
      }
      latch.close();
    } catch (Exception e) {
      LOG.debug("leaving the manager election: {}", e.toString());
    }
  }
}
