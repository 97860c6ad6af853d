package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's link to its cluster's agreed layout: watches the layout znode and hands every new layout
 * to the node, in version order, on one thread; renews the node's {@link LayoutLease} a few times
 * per lease period.
 *
 * <p>Every layout is delivered on the membership's own thread, one at a time, so the node adopts
 * layouts in order and never concurrently. The first delivery after start is flagged {@code
 * initial}: that layout may have been committed before this process started.
 *
 * <p>Invariant: a delivered layout is either fully adopted or retried until it is or a newer one
 * arrives. When {@link Follower#adopt} throws (ZooKeeper does not answer, the node's data directory
 * cannot be written), the same layout is handed over again after a back-off ({@link AdoptionRetry}:
 * 100 ms doubling up to 2 s, a warning once per kind of failure); the lease is not renewed for it
 * meanwhile, so the node serves nothing of a layout it has not adopted. A newer layout that arrives
 * meanwhile replaces it.
 *
 * <p>The lease is renewed on the membership thread, but the ZooKeeper client is called on a thread
 * of its own: the client may block its caller (it closes and reopens its connection in the caller's
 * thread when a session expires), and a renewal must not wait for it, since the peers can renew the
 * lease meanwhile. At most one ZooKeeper read is in flight; while one is, renewals ask the peers at
 * once.
 *
 * <p>While it runs, the membership keeps the node's session znode ({@link NodeSessions}): the
 * witness, besides its silence, that the manager needs to count the node down when fewer than half
 * of the nodes answer it.
 */
public final class ClusterMembership implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterMembership.class);

  /** What the node does with the layouts it is handed. */
  public interface Follower {
    /**
     * Adopts {@code layout}, committed at znode version {@code version}; {@code initial} for the
     * first layout after this process started. Layouts arrive in version order, one at a time. If
     * it throws, the same layout is handed over again later (unless a newer one is first), so it
     * must leave the node able to adopt it again: nothing served from a half-adopted layout.
     */
    void adopt(Layout layout, long version, boolean initial);
  }

  private final ClusterConfig config;
  private final Endpoint self;
  private final NodeCalls peers;
  private final LongSupplier sealedEpoch;
  private final ZkLayoutStore store;
  private final LayoutLease lease;
  private final Follower follower;
  private final ScheduledExecutorService thread;

  /** Where the ZooKeeper client is called for lease renewals, so that it blocks nobody else. */
  private final ExecutorService zooKeeperReads;

  /** The ZooKeeper read of the layout's version last sent; confined to the membership thread. */
  private CompletableFuture<Long> versionRead = CompletableFuture.completedFuture(null);

  private AutoCloseable watch;

  /** Keeps this node's session znode ({@link NodeSessions}); the znode ends with the session. */
  private AutoCloseable session;

  private boolean delivered;
  private long lastVersion = -1;

  /** The newest layout delivered and not adopted yet; confined to the membership thread. */
  private Versioned<Layout> pending;

  /** The back-off of {@link #pending}; confined to the membership thread. */
  private final AdoptionRetry retry = new AdoptionRetry();

  private volatile boolean leasesRecorded;

  /** The znode version of the layout this node last adopted; -1 before the first. */
  private volatile long adoptedVersion = -1;

  /** The layout last handed to the follower; confined to the membership thread. */
  private volatile Layout adopted;

  private ClusterMembership(
      ClusterConfig config,
      Endpoint self,
      NodeCalls peers,
      LongSupplier sealedEpoch,
      ZkLayoutStore store,
      Follower follower) {
    this.config = config;
    this.self = self;
    this.peers = peers;
    this.sealedEpoch = sealedEpoch;
    this.store = store;
    this.follower = follower;
    this.lease = new LayoutLease(config.layoutLease());
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cluster-membership");
              t.setDaemon(true);
              return t;
            });
    this.zooKeeperReads =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "cluster-membership-zookeeper");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Connects to ZooKeeper and starts following the layout of {@code config}'s cluster as node
   * {@code self}, whose sealed epoch {@code sealedEpoch} reads; {@code peers} reaches the other
   * nodes when ZooKeeper cannot renew the layout lease.
   */
  public static ClusterMembership start(
      ClusterConfig config,
      Endpoint self,
      NodeCalls peers,
      LongSupplier sealedEpoch,
      Follower follower) {
    ZkLayoutStore store =
        ZkLayoutStore.connect(
            config.zookeeper(),
            config.name(),
            config.sessionTimeout(),
            config.zookeeperAuth(),
            config.zookeeperTls());
    ClusterMembership m = new ClusterMembership(config, self, peers, sealedEpoch, store, follower);
    try {
      m.session = NodeSessions.register(store.client(), config.name(), self);
      m.watch = store.watch(v -> m.thread.execute(() -> m.deliver(v)));
      long period = Math.max(1, config.layoutLease().toMillis() / 4);
      m.thread.scheduleWithFixedDelay(m::renew, 0, period, TimeUnit.MILLISECONDS);
      return m;
    } catch (RuntimeException e) {
      m.close();
      throw e;
    }
  }

  public ZkLayoutStore store() {
    return store;
  }

  public LayoutLease lease() {
    return lease;
  }

  public ClusterConfig config() {
    return config;
  }

  /** The znode recording that a sequencer of this cluster granted read leases. */
  private String leaseRecordPath() {
    return "/vcorfu/" + config.name() + "/read-leases";
  }

  /**
   * True if some sequencer of this cluster has recorded that it granted read leases (a sequencer
   * that takes over must then wait them out). Fails if ZooKeeper cannot tell.
   */
  public boolean readLeasesGranted() {
    try {
      CompletableFuture<Void> synced = new CompletableFuture<>();
      store
          .client()
          .sync()
          .inBackground((c, e) -> synced.complete(null))
          .forPath(leaseRecordPath());
      synced.get(config.sessionTimeout().toMillis(), TimeUnit.MILLISECONDS);
      return store.client().checkExists().forPath(leaseRecordPath()) != null;
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot learn from ZooKeeper whether read leases were granted", e);
    }
  }

  /**
   * Records, durably in ZooKeeper, that this cluster's sequencer grants read leases; throws (and
   * the lease is not granted) when it cannot.
   *
   * <p>The first record is created only together with a check that the layout znode is still at the
   * version this node adopted (one ZooKeeper transaction). A sequencer the cluster has moved away
   * from therefore cannot record its first grant once the next layout is committed, and a sequencer
   * that takes over, which looks for the record after that commit ({@link #readLeasesGranted}),
   * sees every record an earlier sequencer's grants depend on.
   */
  public void recordReadLeases() {
    if (leasesRecorded) {
      return;
    }
    try {
      CuratorFramework zk = store.client();
      if (zk.checkExists().forPath(leaseRecordPath()) == null) {
        long version = adoptedVersion;
        if (version < 0) {
          throw new IllegalStateException("this node has adopted no layout yet");
        }
        zk.transaction()
            .forOperations(
                zk.transactionOp().check().withVersion((int) version).forPath(store.path()),
                zk.transactionOp().create().forPath(leaseRecordPath()));
      }
      leasesRecorded = true;
    } catch (KeeperException.NodeExistsException recordedMeanwhile) {
      leasesRecorded = true;
    } catch (KeeperException.BadVersionException moved) {
      throw new IllegalStateException(
          "cannot record a read-lease grant: the cluster's layout has changed since this node"
              + " adopted version "
              + adoptedVersion,
          moved);
    } catch (Exception e) {
      throw new IllegalStateException("cannot record a read-lease grant in ZooKeeper", e);
    }
  }

  private void deliver(Versioned<Layout> v) {
    if (v.version() <= lastVersion || (pending != null && v.version() <= pending.version())) {
      return;
    }
    pending = v;
    adoptPending(v);
  }

  /**
   * Hands {@code v} to the follower if it is still the layout to adopt; if the follower fails,
   * tries again after the back-off (see the class comment).
   */
  private void adoptPending(Versioned<Layout> v) {
    if (pending != v) {
      return; // adopted already, or a newer layout replaced it
    }
    boolean initial = !delivered;
    try {
      follower.adopt(v.value(), v.version(), initial);
    } catch (RuntimeException e) {
      Duration wait = retry.failed();
      if (retry.warns(e)) {
        LOG.warn(
            "node {} could not adopt the layout of epoch {} (znode version {}); it serves nothing"
                + " of it and tries again, every {} ms at most, until it has or a newer layout"
                + " arrives: {}",
            self,
            v.value().epoch(),
            v.version(),
            AdoptionRetry.LONGEST.toMillis(),
            e.toString(),
            e);
      } else {
        LOG.debug(
            "node {}: attempt {} to adopt the layout of epoch {} failed: {}",
            self,
            retry.failures(),
            v.value().epoch(),
            e.toString());
      }
      try {
        thread.schedule(() -> adoptPending(v), wait.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closed) {
        return;
      }
      renew();
      return;
    }
    pending = null;
    lastVersion = v.version();
    delivered = true;
    if (retry.failures() > 0) {
      LOG.info(
          "node {} adopted the layout of epoch {} (znode version {}) after {} failed attempts",
          self,
          v.value().epoch(),
          v.version(),
          retry.failures());
    }
    retry.succeeded();
    adoptedVersion = v.version();
    lease.adopted(v.version());
    Layout before = adopted;
    if (before == null || v.value().epoch() > before.epoch()) {
      adopted = v.value();
    }
    renew();
  }

  /**
   * Renews the lease with ZooKeeper; if ZooKeeper does not answer within half a lease, with every
   * other node of the adopted layout (see {@link LayoutLease}). While the ZooKeeper read of an
   * earlier renewal is still unanswered, ZooKeeper is slow or away: the peers are asked at once
   * (and that read, if it is answered, still renews the lease from the time it was sent).
   */
  private void renew() {
    long sent = System.nanoTime();
    long half = Math.max(1, config.layoutLease().toMillis() / 2);
    if (!versionRead.isDone()) {
      renewWithPeers(sent);
      return;
    }
    CompletableFuture<Long> read;
    try {
      read =
          CompletableFuture.supplyAsync(store::currentVersion, zooKeeperReads).thenCompose(f -> f);
    } catch (RejectedExecutionException e) {
      return; // closed
    }
    read.thenAccept(version -> lease.confirmed(sent, version));
    versionRead = read;
    read.copy()
        .orTimeout(half, TimeUnit.MILLISECONDS)
        .whenComplete(
            (version, error) -> {
              if (error != null) {
                LOG.debug("layout lease not renewed by ZooKeeper: {}", error.toString());
                renewWithPeers(sent);
              }
            });
  }

  private void renewWithPeers(long sent) {
    Layout layout = adopted;
    if (layout == null || !layout.allServers().contains(self)) {
      return;
    }
    long mine = sealedEpoch.getAsLong();
    if (mine != layout.epoch()) {
      return;
    }
    List<CompletableFuture<PingResponse>> pings = new ArrayList<>();
    for (Endpoint node : layout.allServers()) {
      if (!node.equals(self)) {
        pings.add(peers.ping(node));
      }
    }
    CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, error) -> {
              if (error != null) {
                LOG.debug("layout lease not renewed by the peers: {}", error.toString());
                return;
              }
              for (CompletableFuture<PingResponse> p : pings) {
                if (p.join().getSealedEpoch() > mine) {
                  return;
                }
              }
              lease.confirmedByPeers(sent);
            });
  }

  @Override
  public void close() {
    thread.shutdownNow();
    zooKeeperReads.shutdownNow();
    if (watch != null) {
      try {
        watch.close();
      } catch (Exception e) {
        LOG.debug("closing the layout watch: {}", e.toString());
      }
    }
    if (session != null) {
      try {
        session.close();
      } catch (Exception e) {
        LOG.debug("stopping the session znode's keeper: {}", e.toString());
      }
    }
    store.close(); // ends the session, and with it the session znode
  }
}
