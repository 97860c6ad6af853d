package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.MemberChanges;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
 * outlives it by a ZooKeeper session timeout). Who leads comes from a watch of the election ({@link
 * ElectionView}), not from ZooKeeper reads every round. The leader reads the layout every round; a
 * node that does not lead probes the newest layout it knows (a watch of the znode and its own
 * commits, {@link LayoutCommits#known}) and reads the layout before it acts in the leader's place,
 * so a decision is always taken on a layout read from ZooKeeper.
 *
 * <p>The safety rules it keeps, each stated in full with the code that keeps it:
 *
 * <ul>
 *   <li>Leadership decides only who acts; safety comes from sealing the next epoch on the nodes,
 *       then a compare-and-set on the layout znode at the version read, so of two managers at once
 *       only one commits and the loser re-reads and decides again ({@link LayoutCommits}).
 *   <li>One change at a time, all on the manager's one thread; a failed attempt is retried on a
 *       later probe round, with back-off, from a fresh read of the layout ({@link ChangeBackoff});
 *       changes clients ask for run on the same thread ({@link RequestedChanges}, {@link
 *       NodeChangeRequests}).
 *   <li>A removal always goes first. A manager that fewer than half of the nodes answer removes
 *       only the silent nodes whose ZooKeeper session has ended too, and otherwise steps down
 *       ({@link FailureChanges}).
 *   <li>A node sealed ahead of the agreed layout (a manager died between sealing and committing) is
 *       unstuck by committing the agreed layout again at that node's sealed epoch ({@link
 *       #recommit}).
 *   <li>A manager whose own rounds run late judges nobody ({@link SelfTiming}).
 * </ul>
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
  private final ScheduledExecutorService thread;
  private final String participant;

  /** This node's place in the election; replaced when the manager steps down (guarded by this). */
  private volatile LeaderLatch latch;

  private boolean closed;

  /** What the probes heard of each node; on the manager's thread. */
  private final NodeProbes probes;

  /** The healing decisions (and when chains were first seen short); on the manager's thread. */
  private final HealingPlan healing;

  private boolean leading;

  /** How punctually this node's own rounds ran; confined. */
  private final SelfTiming timing;

  /** The manager's clock, {@code System.nanoTime()}. */
  private final LongSupplier clock = System::nanoTime;

  /** Sealing and committing the changes decided here. */
  private final LayoutCommits commits;

  /** The back-off after a failed change; on the manager's thread. */
  private final ChangeBackoff backoff;

  /** The changes failed nodes call for; on the manager's thread. */
  private final FailureChanges failures;

  /** The changes clients ask for (add, replace, remove a node). */
  private final NodeChangeRequests requests;

  /** Who leads the election, kept by a watch (a node that does not lead asks every round). */
  private final ElectionView election;

  /** The layout znode's watch, feeding {@link LayoutCommits#learn}; null once closed. */
  private volatile ZkLayoutStore.Watch layoutWatch;

  private ClusterManager(
      Endpoint self, ClusterConfig config, ZkLayoutStore store, NodeCalls calls) {
    this.self = self;
    this.config = config;
    this.healing = new HealingPlan(config.memberHealDelay());
    this.store = store;
    this.probes = new NodeProbes(config, calls, clock);
    this.timing = new SelfTiming(config.probeInterval(), config.failureTimeout());
    this.participant = self + "#" + java.util.UUID.randomUUID();
    this.latch = newLatch();
    this.election = new ElectionView(store.client(), electionPath());
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cluster-manager");
              t.setDaemon(true);
              return t;
            });
    this.commits = new LayoutCommits(self, config, store, calls);
    this.backoff = new ChangeBackoff(self, config);
    this.failures =
        new FailureChanges(self, config, store, probes, commits, backoff, this::stepDown);
    this.requests =
        new NodeChangeRequests(
            self, config, calls, probes, commits, backoff, new RequestedChanges(thread, commits));
  }

  /** Runs for manager of {@code config}'s cluster as {@code self}. */
  public static ClusterManager start(
      Endpoint self, ClusterConfig config, ZkLayoutStore store, NodeCalls calls) {
    ClusterManager m = new ClusterManager(self, config, store, calls);
    m.layoutWatch = store.watch(m.commits::learn);
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
    return new LeaderLatch(store.client(), electionPath(), participant);
  }

  private String electionPath() {
    return "/vcorfu/" + config.name() + "/manager";
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
      // The leader reads the layout every round; a node that does not lead probes the newest
      // layout it knows (its reads, its own commits, the watch) and reads before it acts.
      Versioned<Layout> current = leader ? commits.read() : commits.known();
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
        if (leader && backoff.due(System.nanoTime())) {
          act(current, false);
        }
        return;
      }
      if (!leader && !leaderGone(current.value())) {
        return;
      }
      if (!backoff.due(System.nanoTime())) {
        return;
      }
      if (!leader) {
        current = commits.read();
        if (!leaderGone(current.value())) {
          return;
        }
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
      Optional<String> known = election.leader();
      id = known.isPresent() ? known.get() : latch.getLeader().getId();
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

  /**
   * One round's decisions; {@code steady}: this node's rounds have run on time long enough that it
   * judges others (else it removes nobody, and only heals and recommits).
   */
  private void act(Versioned<Layout> current, boolean steady) {
    Layout layout = current.value();
    long now = System.nanoTime();
    if (failures.act(current, steady, now)) {
      return;
    }
    long sealedAhead = probes.highestSealedEpoch(layout.epoch());
    if (sealedAhead > layout.epoch()) {
      recommit(current, sealedAhead);
      return;
    }
    heal(current, now);
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

  /** Commits one healing change, recording its success or failure (see {@link ChangeBackoff}). */
  private void healingStep(
      Versioned<Layout> current, String what, java.util.function.LongFunction<Layout> change) {
    try {
      commits.commitChange(current, change);
      backoff.succeeded();
    } catch (Exception e) {
      backoff.failed(what, e);
    }
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
    // The node is asked first, off the manager's thread (see NodeChangeRequests#add).
    return requests.add(node, grow, replaces);
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
    return requests.remove(leaving);
  }

  /**
   * Commits the agreed layout again at {@code epoch}, where some node is already sealed: a node
   * sealed ahead of the agreed layout (a manager died between sealing and committing) is unstuck by
   * committing the agreed layout again at that node's sealed epoch.
   */
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
      commits.sealAll(layout.allServers(), epoch, layout.logServers());
      commits.compareAndSet(current, layout.withEpoch(epoch));
      backoff.succeeded();
    } catch (Exception e) {
      backoff.failed("committing epoch " + epoch, e);
    }
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

  @Override
  public void close() {
    thread.shutdownNow();
    ZkLayoutStore.Watch w = layoutWatch;
    if (w != null) {
      w.close();
    }
    election.close();
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
