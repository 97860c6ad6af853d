package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
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
     * first layout after this process started. Layouts arrive in version order, one at a time.
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
  private volatile boolean leasesRecorded;

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
        ZkLayoutStore.connect(config.zookeeper(), config.name(), config.sessionTimeout());
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

  /** Records, durably in ZooKeeper, that this cluster's sequencer grants read leases. */
  public void recordReadLeases() {
    if (leasesRecorded) {
      return;
    }
    try {
      store.client().create().orSetData().creatingParentsIfNeeded().forPath(leaseRecordPath());
      leasesRecorded = true;
    } catch (Exception e) {
      throw new IllegalStateException("cannot record a read-lease grant in ZooKeeper", e);
    }
  }

  private void deliver(Versioned<Layout> v) {
    if (v.version() <= lastVersion) {
      return;
    }
    lastVersion = v.version();
    boolean initial = !delivered;
    delivered = true;
    try {
      follower.adopt(v.value(), v.version(), initial);
      lease.adopted(v.version());
      Layout before = adopted;
      if (before == null || v.value().epoch() > before.epoch()) {
        adopted = v.value();
      }
    } catch (RuntimeException e) {
      LOG.error(
          "could not adopt the layout of epoch {} (znode version {}): {}",
          v.value().epoch(),
          v.version(),
          e.toString(),
          e);
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
