package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.SealResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the manager commits a layout change it has decided on: it seals, then compare-and-sets.
 *
 * <p>Leadership decides only who acts. Safety comes from sealing and the compare-and-set on the
 * layout znode: a change (1) reads the layout and its version, (2) seals the next epoch on every
 * node that stays, learning their log tails once every older-epoch write they admitted has
 * finished, (3) closes the current segment after the highest of those tails and (4) commits the new
 * layout with a compare-and-set at the version read. Two managers at once may both seal (epochs
 * only grow, sealing twice is harmless) but only one compare-and-set at a version succeeds; the
 * loser re-reads and decides again.
 *
 * <p>It decides nothing and records no outcome: a failed step throws, and the caller backs off
 * ({@link ChangeBackoff}). Used on the manager's thread, but for {@link #learn}.
 *
 * <p>It also keeps the newest layout this node knows of ({@link #known}): from its reads, its own
 * commits (known at once, before ZooKeeper's watch tells of them) and a watch of the znode ({@link
 * #learn}). Versions only grow in it. A manager that only probes (it does not lead, and the leader
 * answers) probes that layout instead of reading the znode every round; whatever acts reads first.
 */
final class LayoutCommits {
  // Logged as the manager: every line of the manager's decisions comes under one logger name.
  private static final Logger LOG = LoggerFactory.getLogger(ClusterManager.class);

  private final Endpoint self;
  private final ClusterConfig config;
  private final ZkLayoutStore store;
  private final NodeCalls calls;

  /** The newest layout this node knows of, by version; null before the first. */
  private final AtomicReference<Versioned<Layout>> known = new AtomicReference<>();

  LayoutCommits(Endpoint self, ClusterConfig config, ZkLayoutStore store, NodeCalls calls) {
    this.self = self;
    this.config = config;
    this.store = store;
    this.calls = calls;
  }

  /** How long the manager waits for ZooKeeper or a node to answer. */
  long timeoutMillis() {
    return Math.max(1000, config.failureTimeout().toMillis());
  }

  /** The agreed layout and its version, read from ZooKeeper. */
  Versioned<Layout> read() throws Exception {
    return learn(store.get().get(timeoutMillis(), TimeUnit.MILLISECONDS));
  }

  /**
   * The newest layout this node knows of without asking ZooKeeper (see the class comment), or a
   * fresh {@link #read} when it knows none yet.
   */
  Versioned<Layout> known() throws Exception {
    Versioned<Layout> k = known.get();
    return k != null ? k : read();
  }

  /** Keeps {@code v} as the newest layout known if no newer one is; returns {@code v}. */
  Versioned<Layout> learn(Versioned<Layout> v) {
    known.accumulateAndGet(
        v, (had, now) -> had == null || now.version() > had.version() ? now : had);
    return v;
  }

  /**
   * Compare-and-sets {@code next} at {@code current}'s version, sealing nothing; every change ends
   * with it, so a layout committed here is known here at once.
   */
  void compareAndSet(Versioned<Layout> current, Layout next) throws Exception {
    learn(store.compareAndSet(current.version(), next).get(timeoutMillis(), TimeUnit.MILLISECONDS));
  }

  /**
   * Seals the next epoch on every node that stays (and, with {@code sealLeaving}, on each of {@code
   * leaving} that answers: a planned removal, whose admitted writes finish first and whose log tail
   * counts), closes the current segment after the highest log tail and commits the layout without
   * {@code leaving} by compare-and-set at {@code current}'s version. Returns the committed layout.
   */
  Layout commitWithout(Versioned<Layout> current, List<Endpoint> leaving, boolean sealLeaving)
      throws Exception {
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
    compareAndSet(current, next);
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
   * Commits {@code change} applied to {@code current}'s layout: seals its epoch on every node of
   * the new layout (computed first with a log tail of -1 to learn who they are; the nodes it adds
   * first of all, so that one that does not answer seals nobody else), learns the highest log tail
   * of the current layout's log replicas, and compare-and-sets the change computed with that tail.
   */
  Layout commitChange(Versioned<Layout> current, java.util.function.LongFunction<Layout> change)
      throws Exception {
    return commitChange(current, change, false);
  }

  /**
   * {@link #commitChange(Versioned, java.util.function.LongFunction)}; with {@code anyReplica} the
   * tail is the highest global address any sealed replica holds, log or streams.
   */
  Layout commitChange(
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
    compareAndSet(current, next);
    LOG.info(
        "manager {}: committed the layout of epoch {} (rebuilding {}, spares {})",
        self,
        next.epoch(),
        next.rebuilding().keySet(),
        next.spares());
    return next;
  }

  /**
   * {@code layout} at the next epoch without every node of {@code dead}, the current segment closed
   * at {@code newSegmentStart} (see {@link LayoutChanges#withoutNode}).
   */
  static Layout without(Layout layout, List<Endpoint> dead, long newSegmentStart) {
    Layout next = layout;
    for (int i = 0; i < dead.size(); i++) {
      next = LayoutChanges.withoutNode(next, dead.get(i), i == 0 ? newSegmentStart : 0);
    }
    return next.withEpoch(layout.epoch() + 1);
  }

  /**
   * Seals {@code epoch} on every node of {@code nodes}; returns the highest log tail reported by
   * {@code logServers}. Fails if any node does not answer or is sealed further already.
   */
  long sealAll(Set<Endpoint> nodes, long epoch, Set<Endpoint> logServers) throws Exception {
    return sealAll(nodes, epoch, logServers, false);
  }

  /**
   * Seals {@code epoch} on every node of {@code nodes}; returns the highest log tail of {@code
   * logServers} or, with {@code anyReplica}, the highest global address any of their replicas holds
   * (log or streams).
   */
  long sealAll(Set<Endpoint> nodes, long epoch, Set<Endpoint> logServers, boolean anyReplica)
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
}
