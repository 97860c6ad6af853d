package io.vcorfu.server;

import io.vcorfu.client.ClusterRetention;
import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.FileLayoutStore;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutNotFoundException;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.Versioned;
import io.vcorfu.logunit.FsyncPolicy;
import io.vcorfu.logunit.LogReplica;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StorageMode;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.logunit.StreamReplica;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.LifeCycle;
import io.vcorfu.protocol.RequestDispatcher;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.proto.GetLayoutRequest;
import io.vcorfu.protocol.proto.GetLayoutResponse;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.sequencer.LeaseMarker;
import io.vcorfu.sequencer.ReadLeases;
import io.vcorfu.sequencer.Sequencer;
import io.vcorfu.sequencer.SequencerBootstrap;
import io.vcorfu.sequencer.SequencerService;
import io.vcorfu.server.cluster.ClusterManager;
import io.vcorfu.server.cluster.ClusterMembership;
import io.vcorfu.server.cluster.LeftChainTrims;
import io.vcorfu.server.cluster.NodeCalls;
import io.vcorfu.server.cluster.NodeIdentity;
import io.vcorfu.server.cluster.Rejoin;
import io.vcorfu.server.cluster.RetentionZnode;
import io.vcorfu.server.cluster.SealedEpoch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One vcorfu server process: hosts whichever roles its layout gives its endpoint (sequencer, log
 * replica, stream replica; a node holding stream replicas also hosts the remote views of their
 * streams, see {@link RemoteViewHost}) behind one listening socket. With no layout it is a single
 * node hosting every role.
 *
 * <p>Every request passes one epoch check (the {@link RequestDispatcher}) before any role sees it.
 * A sequencer role does not issue tokens until it has sealed the previous epoch on every node of
 * the layout and rebuilt its tails from the replicas named in it ({@link SequencerBootstrap});
 * requests that arrive earlier wait for it. A restarted sequencer also waits out the read leases it
 * may have granted before ({@link #leaseMarker}).
 *
 * <p>Sealing: a {@code Seal{epoch}} request (any role honours it) raises this node's epoch. The
 * node records the new epoch in its layout store first (when it has a data directory, so the seal
 * survives its restarts: a restarted node serves the stored layout when its epoch is newer than the
 * layout file's), then rejects requests stamped with an older epoch and, through its {@link
 * EpochFence}, writes of entries whose token was issued in an older epoch; it answers once every
 * write admitted under an older epoch has finished.
 *
 * <p>A node with a data directory holds it exclusively for its whole life ({@link
 * DataDirectoryLock}); a second node on the same directory refuses to start, before touching it.
 */
public final class Node implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);

  private final LifeCycle lifeCycle = new LifeCycle("node");
  private final NodeConfig config;
  private final Transport transport;
  private final AtomicReference<Layout> layout = new AtomicReference<>();

  /** Layout questions waiting for a layout newer than the asker's. */
  private final LayoutWaiters layoutWaiters = new LayoutWaiters(layout::get);

  private final EpochFence fence = new EpochFence(0);

  /** Cluster mode: the gate in front of the role handlers, and their foreground write latency. */
  private final ServingGate gate = new ServingGate(() -> notServingReason(this.binding.endpoint()));

  /** Answers NotServing until the roles are open, then routes to them. */
  private volatile RpcHandler dispatcher = RequestDispatcher.builder(() -> 0).build();

  private Transport.ServerBinding binding;
  private DataDirectoryLock dataDirLock;
  private LayoutStore layoutStore;
  private ReplicaStore store;
  private LogReplica logReplica;
  private StreamReplica streamReplica;

  /** The sequencer role while the layout names this node the sequencer. */
  private final SequencerSeat sequencerSeat = new SequencerSeat();

  private RpcClient peers;

  /**
   * The writer of the appends this node takes whole as the sequencer (one for the node's life, so
   * the commits of all of them ride together); null until the node has its peer client.
   */
  private volatile AppendDrivers appendDrivers;

  private RemoteViewHost views;

  /** Cluster mode: the epoch this node is sealed at, kept durably; null for a static layout. */
  private SealedEpoch sealedEpoch;

  /** Cluster mode: the link to the agreed layout; null for a static layout. */
  private ClusterMembership membership;

  /** The disk-space alarm of the data directory; null without one. */
  private DiskAlarm diskAlarm;

  /** Cluster mode: takes the trim marks of chains this node has left; null for a static layout. */
  private LeftChainTrims leftChains;

  /** Cluster mode: the cluster's retention as ZooKeeper has it; null for a static layout. */
  private volatile RetentionZnode clusterRetention;

  /**
   * {@code table} with its entry writes refused while the disk-space alarm is raised, and the
   * retention runtimes follow added to the sequencer's snapshot answers.
   */
  private Map<PayloadCase, RpcHandler> withDiskAlarm(Map<PayloadCase, RpcHandler> table) {
    Map<PayloadCase, RpcHandler> t = new java.util.EnumMap<>(PayloadCase.class);
    t.putAll(table);
    RpcHandler snapshots = t.get(PayloadCase.SNAPSHOTS);
    if (snapshots != null) {
      t.put(PayloadCase.SNAPSHOTS, r -> snapshots.handle(r).thenApply(this::announceRetention));
    }
    DiskAlarm alarm = diskAlarm;
    return alarm == null ? t : alarm.guard(t);
  }

  /** {@code answer} to a snapshot registration, naming the retention runtimes follow. */
  private Response announceRetention(Response answer) {
    RetentionZnode z = clusterRetention;
    ClusterRetention r = z != null ? z.current() : config.retention();
    if (!r.isSet() || !answer.hasSnapshots()) {
      return answer;
    }
    return answer.toBuilder()
        .setSnapshots(
            answer.getSnapshots().toBuilder()
                .setRetention(
                    io.vcorfu.protocol.proto.RetentionPolicy.newBuilder()
                        .setRetainVersions(r.retainVersions())
                        .setRetainTimeMs(r.retainTime() == null ? -1 : r.retainTime().toMillis())))
        .build();
  }

  /** Compacts this node's storage now (see {@link NodeStorage#compact}). */
  private CompletableFuture<Response> compact(io.vcorfu.protocol.proto.CompactRequest request) {
    return NodeStorage.compact(store, request);
  }

  /** The disk-space alarm of this node's data directory; null for a node without one. */
  public DiskAlarm diskAlarm() {
    return diskAlarm;
  }

  /** Trims the global log's prefix as the streams allow, while this node drives it; or null. */
  private io.vcorfu.server.cluster.LogPrefixTrim logTrim;

  /** Cluster mode: this node's run for manager; null for a static layout. */
  private ClusterManager manager;

  /** Cluster mode: rebuilding-replica duties (see {@link Rejoin}); null for a static layout. */
  private Rejoin rejoin;

  /** Cluster mode: whose data this node's directory holds (see {@link NodeIdentity}). */
  private NodeIdentity identity;

  /**
   * Cluster mode: why the latest agreed layout does not trust this node's data (it records another
   * incarnation of it, or none yet); null when it does. Judged on every layout delivered.
   */
  private volatile String untrusted = "no layout has been delivered yet";

  /** Cluster mode: true when the latest agreed layout records another incarnation of this node. */
  private volatile boolean foreign;

  /**
   * Cluster mode: why the layout last delivered is not adopted yet (its adoption failed and is
   * retried, see {@link ClusterMembership}); null once it is.
   */
  private volatile String adoptionFailed;

  /**
   * Cluster mode: the epoch of the first layout this process was delivered; it takes the sequencer
   * role only at a later epoch, so that no token an earlier run of it issued can still be written.
   */
  private long firstEpoch = -1;

  /**
   * Cluster mode: the znode version of the last layout this node adopted (-1: none yet). A layout
   * delivered at the next version follows it directly: no layout was committed in between that this
   * node did not see, so no other node can have been the sequencer in between.
   */
  private long adoptedVersion = -1;

  private Node(NodeConfig config, Transport transport) {
    this.config = config;
    this.transport = transport;
    this.diskAlarm =
        config.durable()
            ? new DiskAlarm(String.valueOf(config.listen()), config.dataDir(), 0)
            : null;
  }

  /** Starts a node; returns once it is bound and its local roles are open. */
  public static Node start(NodeConfig config, Transport transport) {
    Node node = new Node(config, transport);
    try {
      node.startRoles();
      return node;
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
  }

  public Endpoint endpoint() {
    return binding.endpoint();
  }

  public Layout layout() {
    return layout.get();
  }

  /**
   * Clients holding a read lease from this node's sequencer now (0 when it is not the sequencer).
   */
  public int readLeaseHolders() {
    SequencerRole role = sequencerSeat.role();
    return role == null || role.leases() == null ? 0 : role.leases().holders();
  }

  /**
   * Completes when every role this node hosts is serving (the sequencer has bootstrapped). A
   * cluster node is ready once it listens, whether or not it is in the layout yet.
   */
  public CompletableFuture<Void> ready() {
    SequencerRole role = sequencerSeat.role();
    return membership != null || role == null || role.bootstrap() == null
        ? CompletableFuture.completedFuture(null)
        : role.bootstrap().done();
  }

  /** True when this node follows a cluster's agreed layout. */
  public boolean clustered() {
    return config.cluster() != null;
  }

  /**
   * Runs one round of the global log's prefix trim now, when this node drives it (the manager, or
   * the sequencer of a static layout): the mark every log replica holds afterwards, -1 when the
   * round could not run or this node does not drive it.
   */
  public long trimLogNow() {
    io.vcorfu.server.cluster.LogPrefixTrim t = logTrim;
    return t == null || (clustered() && !managing()) ? -1 : t.once();
  }

  /**
   * Cluster mode: takes now the trim marks of the chains this node has left (see {@link
   * LeftChainTrims}); returns how many marks it raised, -1 for a node without a cluster.
   */
  public int reclaimLeftChainsNow() {
    LeftChainTrims t = leftChains;
    return t == null ? -1 : t.runOnce();
  }

  /** {@link #trimLogNow()}, keeping the entries of the last {@code retention} instead. */
  public long trimLogNow(java.time.Duration retention) {
    io.vcorfu.server.cluster.LogPrefixTrim t = logTrim;
    return t == null || (clustered() && !managing()) ? -1 : t.once(retention.toNanos());
  }

  /** Cluster mode: true while this node is the cluster's manager. */
  public boolean managing() {
    return manager != null && manager.leading();
  }

  private void startRoles() {
    lifeCycle.transition(LifeCycle.State.STARTING);
    if (config.cluster() != null) {
      startClustered();
      return;
    }
    if (config.durable()) {
      // Before anything else touches the directory (or the port): a second node on it must not
      // rewrite its layout or open its replicas.
      dataDirLock = DataDirectoryLock.acquire(config.dataDir());
    }
    // The port is bound first (port 0 picks one, and the layout's roles depend on it). Until the
    // layout is chosen every request is answered NotServing; while the roles open, only the node's
    // own requests (ping, layout, seal) are served; then the dispatcher is bound to the open roles.
    binding = transport.bind(config.listen(), this::answer);
    Endpoint me = binding.endpoint();
    Layout chosen = chooseLayout(me);
    fence.seal(chosen.epoch());
    layout.set(chosen);
    dispatcher = dispatcher(me, Map.of());
    openRoles(chosen, me);
    dispatcher = dispatcher(me, withDiskAlarm(RoleHandlers.table(roles(), layout::get, fence)));
    SequencerRole role = sequencerSeat.role();
    if (role != null) {
      role.start();
    }
    lifeCycle.transition(LifeCycle.State.RUNNING);
    LOG.info(
        "node {} serving epoch {} as{}{}{}{}",
        me,
        chosen.epoch(),
        role != null ? " sequencer" : "",
        logReplica != null ? " log-replica" : "",
        streamReplica != null ? " stream-replica" : "",
        views != null ? " remote-view-host" : "");
  }

  private Roles roles() {
    if (appendDrivers == null && peers != null && binding != null) {
      appendDrivers = new AppendDrivers(binding.endpoint(), this::answer, peers);
    }
    return new Roles(sequencerSeat.role(), logReplica, streamReplica, store, views, appendDrivers);
  }

  /**
   * Cluster mode: the node binds, opens both replica roles and the remote-view host (any node may
   * be given any role by a later layout), takes the layout and sealed epoch it recorded before, and
   * starts following the agreed layout; it serves role requests only once it has adopted a layout
   * naming it, at the epoch it is sealed at, under a valid layout lease.
   */
  private void startClustered() {
    if (config.durable()) {
      dataDirLock = DataDirectoryLock.acquire(config.dataDir());
    }
    binding = transport.bind(config.listen(), this::answer);
    Endpoint me = binding.endpoint();
    identity =
        config.durable()
            ? NodeIdentity.open(config.dataDir(), config.cluster().name(), me)
            : NodeIdentity.inMemory(config.cluster().name(), me);
    Layout stored = null;
    if (config.durable()) {
      stored = openLayoutStore();
      sealedEpoch = SealedEpoch.open(config.dataDir().resolve("sealed-epoch"));
    } else {
      sealedEpoch = SealedEpoch.inMemory();
    }
    String cluster = config.cluster().name();
    if (stored != null && !stored.clusterId().equals(cluster)) {
      throw new IllegalStateException(
          "the data directory "
              + config.dataDir()
              + " belongs to cluster '"
              + stored.clusterId()
              + "', not '"
              + cluster
              + "'");
    }
    fence.seal(Math.max(sealedEpoch.get(), stored == null ? 0 : stored.epoch()));
    layout.set(stored);
    try {
      store = ReplicaStore.open(storage());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the replica storage of " + me, e);
    }
    logReplica = store.logReplica();
    streamReplica = store.streamReplica();
    peers = transport.newClient(ClientOptions.defaults());
    rejoin =
        new Rejoin(
            me,
            store,
            transport,
            config.durable() ? config.dataDir() : null,
            config.cluster().rebuildBytesPerSecond(),
            config.cluster().rebuildForegroundP99());
    openViews(me);
    dispatcher = clusterDispatcher(me);
    NodeCalls calls = new NodeCalls(peers);
    membership = ClusterMembership.start(config.cluster(), me, calls, fence::epoch, this::adopt);
    manager = ClusterManager.start(me, config.cluster(), membership.store(), calls);
    clusterRetention = RetentionZnode.watch(membership.store().client(), config.cluster().name());
    logTrim =
        new io.vcorfu.server.cluster.LogPrefixTrim(
            calls,
            layout::get,
            this::managing,
            io.vcorfu.server.cluster.LogPrefixTrim.DEFAULT_INTERVAL,
            config.logRetention());
    leftChains = LeftChainTrims.start(me, store, layout::get, calls);
    lifeCycle.transition(LifeCycle.State.RUNNING);
    LOG.info(
        "node {} joined cluster {} at ZooKeeper {}{}; data directory incarnation {}{}",
        me,
        cluster,
        config.cluster().zookeeper(),
        stored == null
            ? " (no layout recorded yet: it serves once the cluster's layout names it)"
            : " (last layout: epoch " + stored.epoch() + ")",
        identity.incarnation(),
        identity.fresh() ? " (new)" : "");
  }

  /**
   * Cluster mode: the dispatcher. The epoch check is against the epoch this node is sealed at, so a
   * request of an older epoch is refused with {@code WrongEpoch} as soon as the seal is recorded;
   * every role request also passes the {@link ServingGate}.
   */
  private RequestDispatcher clusterDispatcher(Endpoint me) {
    Map<PayloadCase, RpcHandler> gated = new java.util.EnumMap<>(PayloadCase.class);
    withDiskAlarm(RoleHandlers.table(roles(), layout::get, fence))
        .forEach((k, h) -> gated.put(k, gate.gated(h)));
    return RequestDispatcher.builder(fence::epoch)
        .on(PayloadCase.PING, r -> done(pingResponse(me, r.getPing().getSpace())))
        .on(PayloadCase.COMPACT, r -> compact(r.getCompact()))
        .on(PayloadCase.GET_LAYOUT, r -> layoutAnswer(r.getGetLayout()))
        .on(PayloadCase.SEAL, r -> seal(r.getSeal().getEpoch()))
        .on(PayloadCase.REMOVE_NODE, r -> ManagerRequests.removeNode(manager, r.getRemoveNode()))
        .on(PayloadCase.ADD_NODE, r -> ManagerRequests.addNode(manager, r.getAddNode()))
        .onAll(gated)
        .build();
  }

  private volatile RequestObserver requestObserver;
  private volatile io.vcorfu.logunit.ForceObserver forceObserver;

  private final AdoptedLayouts adopted = new AdoptedLayouts(20);

  /** The last (at most 20) layout changes this node adopted, newest first. */
  public List<AdoptedLayouts.Change> recentChanges() {
    return adopted.recent();
  }

  /** The highest global address this node's log replica holds; -1 when none or no replica. */
  public long logTail() {
    LogReplica r = logReplica;
    if (r == null) {
      return -1;
    }
    try {
      return r.tail(io.vcorfu.protocol.proto.LogTailRequest.getDefaultInstance())
          .get(2, java.util.concurrent.TimeUnit.SECONDS)
          .getTail();
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * The last global address the cluster's sequencer issued (-1 when none), as it answers within
   * half a second; null when it does not.
   */
  public Long globalTail() {
    Layout l = layout.get();
    RpcClient client = peers;
    if (l == null || client == null) {
      return null;
    }
    try {
      return new io.vcorfu.server.cluster.NodeCalls(client)
          .globalTail(l.sequencer(), l.epoch())
          .get(500, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      return null;
    }
  }

  /**
   * Every stream this node's stream replica holds, in id order, with its tail (the highest stream
   * address held) and trim mark; null when the node holds no stream replica or it does not answer.
   */
  public io.vcorfu.protocol.proto.StreamTailResponse streamTails() {
    StreamReplica r = streamReplica;
    if (r == null) {
      return null;
    }
    try {
      return r.tail(io.vcorfu.protocol.proto.StreamTailRequest.newBuilder().setAll(true).build())
          .get(2, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      return null;
    }
  }

  /** Has {@code observer} see every request this node answers from now on (null: none). */
  public void observeRequests(RequestObserver observer) {
    requestObserver = observer;
  }

  /**
   * Has {@code observer} see every fsync of this node's storage from now on, including stores the
   * node opens later (null: none).
   */
  public void observeForces(io.vcorfu.logunit.ForceObserver observer) {
    forceObserver = observer;
  }

  private CompletableFuture<Response> answer(Request request) {
    RequestObserver o = requestObserver;
    if (o == null) {
      return dispatcher.handle(request);
    }
    long started = System.nanoTime();
    return dispatcher
        .handle(request)
        .whenComplete((r, error) -> o.answered(request, r, error, System.nanoTime() - started));
  }

  /**
   * What this node answers a ping with: its epochs, whether it serves (and why not), rebuild and
   * takeover progress, and its foreground write latency.
   */
  public PingResponse status() {
    return pingResponse(binding.endpoint(), true).getPing();
  }

  /** {@code other}'s answer to a ping (see {@link #status}), asked through this node's client. */
  public CompletableFuture<PingResponse> ping(Endpoint other) {
    RpcClient client = peers;
    if (client == null) {
      return CompletableFuture.failedFuture(
          new io.vcorfu.protocol.NotServingException("node", "node has not started"));
    }
    return new io.vcorfu.server.cluster.NodeCalls(client).ping(other);
  }

  /** Cluster mode: why this node does not serve role requests now; null when it does. */
  private String notServingReason(Endpoint me) {
    Layout l = layout.get();
    if (l == null) {
      return "node " + me + " has no layout of cluster " + config.cluster().name() + " yet";
    }
    long sealed = fence.epoch();
    if (sealed > l.epoch()) {
      return "node " + me + " is sealed at epoch " + sealed + " and waits for that epoch's layout";
    }
    if (!l.allServers().contains(me)) {
      return "node "
          + me
          + " is not in the layout of epoch "
          + l.epoch()
          + (l.removed().contains(me) ? " (it was removed)" : "");
    }
    String failed = adoptionFailed;
    if (failed != null) {
      return failed;
    }
    String distrust = untrusted;
    if (distrust != null) {
      return distrust;
    }
    ClusterMembership m = membership;
    String lease = m == null ? "it has not joined its cluster yet" : m.lease().whyNotValid();
    return lease == null ? null : "node " + me + " does not serve: " + lease;
  }

  /**
   * Cluster mode: seals every epoch below {@code epoch}, recording it durably first; answers once
   * every write admitted under an older epoch has finished, with this node's epoch, log tail and
   * the highest global address any of its replicas holds.
   */
  private CompletableFuture<Response> sealClustered(long epoch) {
    if (epoch > sealedEpoch.get()) {
      sealedEpoch.raise(epoch);
      LOG.info("node {} sealed every epoch below {}", binding.endpoint(), epoch);
    }
    return fence
        .seal(epoch)
        .thenCompose(
            v -> logReplica.tail(io.vcorfu.protocol.proto.LogTailRequest.getDefaultInstance()))
        .thenApply(
            t ->
                Response.newBuilder()
                    .setSeal(
                        io.vcorfu.protocol.proto.SealResponse.newBuilder()
                            .setEpoch(fence.epoch())
                            .setLogTail(t.getTail())
                            .setMaxGlobal(store == null ? -1 : store.maxGlobal()))
                    .build());
  }

  /**
   * Cluster mode: adopts an agreed layout (see {@link ClusterMembership.Follower#adopt}). A newer
   * epoch is recorded durably and sealed before it is served. The sequencer role follows the
   * layout: kept (with its tails and leases) when this node stays the sequencer, bootstrapped when
   * it becomes the sequencer, closed when it stops being it. A process that finds itself the
   * sequencer of the layout it starts with first commits that layout at the next epoch, fencing any
   * token an earlier run of it issued; it takes the role when that epoch arrives.
   *
   * <p>When a step fails (the layout cannot be recorded in the data directory, ZooKeeper does not
   * answer the new sequencer) it throws, and the membership hands the same layout over again later;
   * every step is safe to repeat. Until the adoption succeeds the node serves no role request (see
   * {@link #notServingReason}), whatever its layout lease says.
   */
  private synchronized void adopt(Layout next, long version, boolean initial) {
    try {
      adoptOrThrow(next, version, initial);
      adoptionFailed = null;
    } catch (RuntimeException e) {
      adoptionFailed =
          "node "
              + binding.endpoint()
              + " has not adopted the layout of epoch "
              + next.epoch()
              + " yet (it tries again): "
              + e;
      throw e;
    }
  }

  private void adoptOrThrow(Layout next, long version, boolean initial) {
    Endpoint me = binding.endpoint();
    Layout current = layout.get();
    if (!next.clusterId().equals(config.cluster().name())) {
      LOG.error(
          "node {} ignores a layout of cluster '{}': it belongs to cluster '{}'",
          me,
          next.clusterId(),
          config.cluster().name());
      return;
    }
    if (current != null && next.epoch() < current.epoch()) {
      LOG.warn(
          "node {} ignores the layout of epoch {}: it has adopted epoch {}",
          me,
          next.epoch(),
          current.epoch());
      return;
    }
    boolean newer = current == null || next.epoch() > current.epoch();
    // Every layout delivered, newer or not (a claim changes the layout, not its epoch), says
    // whether this node's data is the data the cluster counts on.
    untrusted = identity.whyNotTrusted(next);
    foreign = next.incarnations().containsKey(me) && untrusted != null;
    if (foreign) {
      LOG.warn("node {}: {}", me, untrusted);
    }
    Layout claimed = identity.claim(next);
    if (newer) {
      if (layoutStore != null) {
        Versioned<Layout> v = storedLayout();
        layoutStore.compareAndSet(v == null ? LayoutStore.NO_VERSION : v.version(), next).join();
      }
      sealedEpoch.raise(next.epoch());
      fence.seal(next.epoch());
      rejoin.follow(next);
      layout.set(next);
      layoutWaiters.adopted(next);
      LOG.info(
          "node {} adopted the layout of epoch {} (sequencer {}{})",
          me,
          next.epoch(),
          next.sequencer(),
          next.allServers().contains(me) ? "" : "; this node is not in it");
      adopted.record(current, next);
    }
    if (!newer) {
      // A change at the same epoch (a claimed incarnation, a spare added) names the same chains:
      // served as it is, and handed out as the newest layout. After a restart the first layout
      // delivered may be the one the node had stored: a rebuild it was doing resumes here.
      rejoin.follow(next);
      layout.set(next);
    }
    if (initial) {
      firstEpoch = next.epoch();
    }
    boolean mine = next.sequencer().equals(me);
    if (mine && next.epoch() <= firstEpoch) {
      // Also when an earlier attempt lost its compare-and-set (to a claim, say): every delivery
      // of the first epoch tries again, until a later epoch arrives.
      sequencerSeat.close();
      LOG.info(
          "node {} starts as the sequencer of epoch {}: committing epoch {} first, so that no"
              + " token an earlier run issued can be written",
          me,
          next.epoch(),
          next.epoch() + 1);
      propose(LayoutChanges.nextEpoch(claimed != null ? claimed : next), version);
    } else {
      if (claimed != null) {
        LOG.info(
            "node {} records its data directory incarnation {} in the layout of epoch {}",
            me,
            identity.incarnation(),
            next.epoch());
        propose(claimed, version);
      }
      // Also when an earlier delivery of this layout was adopted but the seat's follow threw (the
      // seat still holds what it held before).
      if (newer
          || (mine && sequencerSeat.role() == null)
          || sequencerSeat.followed() < next.epoch()) {
        boolean follows = adoptedVersion >= 0 && version == adoptedVersion + 1;
        sequencerSeat.follow(
            next, mine, follows, me, membership, peers, config.cluster().layoutLease());
      }
    }
    adoptedVersion = version;
    dispatcher = clusterDispatcher(me);
  }

  /**
   * Cluster mode: compare-and-sets {@code next} at znode version {@code version}; a lost race is
   * only logged (the winner's layout is delivered next, and judged again).
   */
  private void propose(Layout next, long version) {
    Endpoint me = binding.endpoint();
    membership
        .store()
        .compareAndSet(version, next)
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                LOG.info(
                    "node {}: layout of epoch {} not committed: {}",
                    me,
                    next.epoch(),
                    e.toString());
              }
            });
  }

  /** The node's own requests (ping, layout, seal), then {@code roles}, behind the epoch check. */
  private RequestDispatcher dispatcher(Endpoint me, Map<PayloadCase, RpcHandler> roles) {
    return RequestDispatcher.builder(() -> layout.get().epoch())
        .on(PayloadCase.PING, r -> done(pingResponse(me, r.getPing().getSpace())))
        .on(PayloadCase.COMPACT, r -> compact(r.getCompact()))
        .on(PayloadCase.GET_LAYOUT, r -> layoutAnswer(r.getGetLayout()))
        .on(PayloadCase.SEAL, r -> seal(r.getSeal().getEpoch()))
        .onAll(roles)
        .build();
  }

  private Response pingResponse(Endpoint me, boolean withSpace) {
    Response r = pingResponse(me);
    if (!withSpace) {
      return r;
    }
    return r.toBuilder().setPing(r.getPing().toBuilder().setSpace(space())).build();
  }

  /**
   * How this node's storage uses its disk, and the lowest global address the log must keep for its
   * streams (0 while it rebuilds or copies streams from the log: it cannot tell yet).
   */
  public io.vcorfu.protocol.proto.StorageSpace space() {
    ReplicaStore s = store;
    Rejoin r = rejoin;
    io.vcorfu.protocol.proto.RebuildProgress takeover = r == null ? null : r.takeoverProgress();
    boolean copying = s != null && (s.joinedAt() != 0 || (takeover != null && !takeover.getDone()));
    return NodeStorage.space(s, copying, diskAlarm);
  }

  private Response pingResponse(Endpoint me) {
    Layout l = layout.get();
    io.vcorfu.server.cluster.LatencyWindow.Snapshot writes = gate.foregroundWrites().snapshot();
    String why = clustered() ? notServingReason(me) : null;
    return Response.newBuilder()
        .setPing(
            PingResponse.newBuilder()
                .setNodeId(String.valueOf(me))
                .setEpoch(l == null ? 0 : l.epoch())
                .setSealedEpoch(fence.epoch())
                .setServing(why == null)
                .setNotServingReason(why == null ? "" : why)
                .setUntrusted(clustered() && foreign)
                .setLayoutConfirmed(
                    membership != null && l != null && membership.lease().whyNotValid() == null)
                .setCluster(clustered() ? config.cluster().name() : "")
                .setManager(manager == null ? "" : manager.participant())
                .setManaging(managing())
                .setForegroundWrites(writes.requests())
                .setForegroundP99Micros(writes.p99Micros())
                .setRebuild(rebuildProgress())
                .setTakeover(takeoverProgress()))
        .build();
  }

  /**
   * Cluster mode: the last rebuild of this node's replicas that finished (kept after promotion);
   * null when none did in this process.
   */
  public io.vcorfu.protocol.proto.RebuildProgress lastRebuild() {
    Rejoin r = rejoin;
    return r == null ? null : r.lastRebuild();
  }

  /**
   * Cluster mode: slots this node copied from the log for stream chains it took up (see {@link
   * io.vcorfu.server.cluster.Takeover}), since it started; 0 for a static layout.
   */
  public long takenUpFromLog() {
    Rejoin r = rejoin;
    return r == null ? 0 : r.takenUpFromLog();
  }

  private io.vcorfu.protocol.proto.RebuildProgress takeoverProgress() {
    Rejoin r = rejoin;
    io.vcorfu.protocol.proto.RebuildProgress p = r == null ? null : r.takeoverProgress();
    return p == null ? io.vcorfu.protocol.proto.RebuildProgress.getDefaultInstance() : p;
  }

  private io.vcorfu.protocol.proto.RebuildProgress rebuildProgress() {
    Rejoin r = rejoin;
    io.vcorfu.protocol.proto.RebuildProgress p = r == null ? null : r.progress();
    return p == null ? io.vcorfu.protocol.proto.RebuildProgress.getDefaultInstance() : p;
  }

  /** Opens the roles {@code chosen} gives {@code me}; the sequencer's bootstrap is not started. */
  private void openRoles(Layout chosen, Endpoint me) {
    try {
      boolean hostsLog = chosen.logServers().contains(me);
      boolean hostsStreams = chosen.streamServers().contains(me);
      if (hostsLog || hostsStreams) {
        // One engine for both replica roles: a write visiting both on this node is forced once.
        store = ReplicaStore.open(storage());
      }
      if (hostsLog) {
        logReplica = store.logReplica();
      }
      if (hostsStreams) {
        streamReplica = store.streamReplica();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the replica storage of " + me, e);
    }
    if (chosen.sequencer().equals(me)) {
      SequencerService sequencer = new SequencerService(new Sequencer());
      ReadLeases leases = new ReadLeases(leaseMarker(chosen, me));
      sequencer.onIssued(leases::issued);
      peers = transport.newClient(ClientOptions.defaults());
      logTrim =
          new io.vcorfu.server.cluster.LogPrefixTrim(
              new io.vcorfu.server.cluster.NodeCalls(peers),
              layout::get,
              () -> true,
              io.vcorfu.server.cluster.LogPrefixTrim.DEFAULT_INTERVAL,
              config.logRetention());
      sequencerSeat.hold(
          new SequencerRole(
              sequencer,
              leases,
              new SequencerBootstrap(new BootstrapPeers(peers, chosen), chosen, sequencer),
              0));
    }
    if (streamReplica != null) {
      openViews(me);
    }
  }

  /**
   * The remote-view host: it reads what this node holds (its stream replica, its sequencer's tails)
   * in process, and only the rest over the network.
   */
  private void openViews(Endpoint me) {
    StreamReplica replica = streamReplica;
    views =
        new RemoteViewHost(
            transport,
            () -> binding.endpoint(),
            config,
            cluster -> new LocalReplicaLog(cluster, me, layout::get, replica, sequencerSeat::role));
  }

  /**
   * Where the sequencer learns which read leases it may have granted before this start. With a data
   * directory, the marker file there. Without one, the sequencer cannot know: when every replica is
   * on this node too, nothing it served outlives the process, so no wait; otherwise the replicas
   * (and the clients' leased memories of them) outlive it, so it waits out the longest lease from
   * now, unless the config vouches that there was no earlier run.
   */
  private LeaseMarker leaseMarker(Layout chosen, Endpoint me) {
    if (config.durable()) {
      return new LeaseMarker(config.dataDir().resolve("read-leases"));
    }
    if (config.noEarlierLeases() || chosen.allServers().equals(Set.of(me))) {
      return null;
    }
    return LeaseMarker.inMemory(System.currentTimeMillis() + ReadLeases.MAX_LEASE.toMillis());
  }

  /**
   * Seals every epoch below {@code epoch}: records it durably, then serves it, and answers once
   * every write admitted under an older epoch has finished (see the class comment).
   */
  private synchronized CompletableFuture<Response> seal(long epoch) {
    if (clustered()) {
      return sealClustered(epoch);
    }
    Layout current = layout.get();
    if (current == null) {
      return CompletableFuture.failedFuture(new io.vcorfu.protocol.NotServingException("layout"));
    }
    if (epoch > current.epoch()) {
      Layout next = current.withEpoch(epoch);
      if (layoutStore != null) {
        Versioned<Layout> v = storedLayout();
        layoutStore.compareAndSet(v == null ? LayoutStore.NO_VERSION : v.version(), next).join();
      }
      layout.set(next);
      layoutWaiters.adopted(next);
      current = next;
      LOG.info("node {} sealed every epoch below {}", binding.endpoint(), epoch);
    }
    long now = current.epoch();
    return fence
        .seal(now)
        .thenApply(
            v ->
                Response.newBuilder()
                    .setSeal(io.vcorfu.protocol.proto.SealResponse.newBuilder().setEpoch(now))
                    .build());
  }

  /**
   * The node's layout; for a question that waits ({@code wait_ms}), once it is newer than the
   * asker's or the wait is over (see {@link LayoutWaiters}).
   */
  private CompletableFuture<Response> layoutAnswer(GetLayoutRequest question) {
    return layoutWaiters
        .answer(question.getNewerThan(), question.getWaitMs())
        .thenApply(this::layoutResponse);
  }

  private Response layoutResponse(Layout l) {
    if (l == null) {
      throw new io.vcorfu.protocol.NotServingException(
          "layout", "node " + binding.endpoint() + " has no layout yet");
    }
    return Response.newBuilder()
        .setGetLayout(GetLayoutResponse.newBuilder().setLayoutJson(l.toJson()).setEpoch(l.epoch()))
        .build();
  }

  private static CompletableFuture<Response> done(Response r) {
    return CompletableFuture.completedFuture(r);
  }

  private StorageOptions storage() {
    if (!config.durable()) {
      return StorageOptions.memory();
    }
    StorageOptions.Builder b =
        StorageOptions.builder()
            .mode(StorageMode.DURABLE)
            .directory(config.dataDir().resolve("replicas"))
            .forceObserver(
                (nanos, records) -> {
                  io.vcorfu.logunit.ForceObserver o = forceObserver;
                  if (o != null) {
                    o.forced(nanos, records);
                  }
                });
    if (config.segmentBytes() > 0) {
      b.segmentSize(config.segmentBytes());
    }
    if (config.fsyncInterval() != null) {
      b.fsyncPolicy(FsyncPolicy.INTERVAL).fsyncInterval(config.fsyncInterval());
    }
    return b.build();
  }

  /**
   * The layout this node serves: the given file's if any (kept in the data directory from then on,
   * unless the stored one is newer), else a single-node layout at the bound endpoint carrying the
   * stored epoch.
   */
  private Layout chooseLayout(Endpoint bound) {
    Layout stored = null;
    if (config.durable()) {
      stored = openLayoutStore();
    }
    Layout chosen;
    if (config.layoutFile() != null) {
      Layout given = readLayout(config.layoutFile());
      chosen = stored != null && stored.epoch() > given.epoch() ? stored : given;
      if (!chosen.allServers().contains(bound)) {
        throw new IllegalArgumentException(
            "this node listens on "
                + bound
                + " but the layout in "
                + config.layoutFile()
                + " does not name it");
      }
    } else {
      long epoch = stored == null ? 1 : stored.epoch();
      chosen =
          Layout.singleNode(bound, stored == null ? "vcorfu" : stored.clusterId()).withEpoch(epoch);
    }
    if (layoutStore != null) {
      Versioned<Layout> v = storedLayout();
      if (v == null || !v.value().equals(chosen)) {
        layoutStore.compareAndSet(v == null ? LayoutStore.NO_VERSION : v.version(), chosen).join();
      }
    }
    return chosen;
  }

  /**
   * Creates the data directory if needed and opens the layout store in it; returns the layout it
   * holds (null when none).
   */
  private Layout openLayoutStore() {
    try {
      Files.createDirectories(config.dataDir());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data directory " + config.dataDir(), e);
    }
    layoutStore = new FileLayoutStore(config.dataDir().resolve("layout.json"));
    Versioned<Layout> v = storedLayout();
    return v == null ? null : v.value();
  }

  private Versioned<Layout> storedLayout() {
    try {
      return layoutStore.get().join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof LayoutNotFoundException) {
        return null;
      }
      throw e;
    }
  }

  static Layout readLayout(Path file) {
    try {
      return Layout.fromJson(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read layout file " + file, e);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("closing {} failed: {}", c, e.toString());
    }
  }

  @Override
  public void close() {
    if (!lifeCycle.startClosing()) {
      return;
    }
    closeQuietly(logTrim);
    closeQuietly(leftChains);
    closeQuietly(manager);
    closeQuietly(clusterRetention);
    closeQuietly(membership);
    closeQuietly(rejoin);
    closeQuietly(views);
    if (binding != null) {
      binding.close();
    }
    sequencerSeat.close();
    if (peers != null) {
      peers.close();
    }
    closeQuietly(store);
    if (layoutStore != null) {
      layoutStore.close();
    }
    if (dataDirLock != null) {
      dataDirLock.close();
    }
    lifeCycle.transition(LifeCycle.State.CLOSED);
  }
}
