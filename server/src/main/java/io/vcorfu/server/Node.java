package io.vcorfu.server;

import io.vcorfu.client.ClusterRetention;
import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutNotFoundException;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.Versioned;
import io.vcorfu.logunit.LogReplica;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StreamReplica;
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
import io.vcorfu.sequencer.SequencerBootstrap;
import io.vcorfu.server.access.Authorization;
import io.vcorfu.server.cluster.ClusterManager;
import io.vcorfu.server.cluster.ClusterMembership;
import io.vcorfu.server.cluster.LeftChainTrims;
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
 * may have granted before ({@link NodeStartup#leaseMarker}).
 *
 * <p>Sealing ({@code Seal{epoch}}), and in cluster mode adopting each agreed layout: see {@link
 * LayoutAdoption}. Starting: {@link NodeStartup}; what the node reports about itself: {@link
 * NodeStatus}.
 *
 * <p>A node with a data directory holds it exclusively for its whole life ({@link
 * DataDirectoryLock}); a second node on the same directory refuses to start, before touching it.
 */
public final class Node implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);

  // The node's parts are package-private for the jobs split out of it: NodeStartup opens and sets
  // them, LayoutAdoption and NodeStatus read them (and the adoption rebinds the dispatcher).
  final LifeCycle lifeCycle = new LifeCycle("node");
  final NodeConfig config;
  final Transport transport;
  final AtomicReference<Layout> layout = new AtomicReference<>();

  /** Layout questions waiting for a layout newer than the asker's. */
  final LayoutWaiters layoutWaiters = new LayoutWaiters(layout::get);

  final EpochFence fence = new EpochFence(0);

  /** Seals, cluster-mode layout adoption, and whether the node serves (see the class). */
  final LayoutAdoption adoption = new LayoutAdoption(this);

  /** What the node reports about itself (see the class). */
  private final NodeStatus reports = new NodeStatus(this);

  /** Cluster mode: the gate in front of the role handlers, and their foreground write latency. */
  final ServingGate gate =
      new ServingGate(() -> adoption.notServingReason(this.binding.endpoint()));

  /** Where the node's grants come from once it has started (null: none yet, only nodes served). */
  volatile java.util.function.Supplier<io.vcorfu.server.access.AccessList> grants;

  /**
   * What the transport calls: every request with its sender's principal ({@link Authorization}).
   */
  final RpcHandler entry;

  /** Answers NotServing until the roles are open, then routes to them. */
  volatile RpcHandler dispatcher = RequestDispatcher.builder(() -> 0).build();

  Transport.ServerBinding binding;
  DataDirectoryLock dataDirLock;
  LayoutStore layoutStore;
  ReplicaStore store;
  LogReplica logReplica;
  StreamReplica streamReplica;

  /** The sequencer role while the layout names this node the sequencer. */
  final SequencerSeat sequencerSeat = new SequencerSeat();

  RpcClient peers;

  /**
   * The writer of the appends this node takes whole as the sequencer (one for the node's life, so
   * the commits of all of them ride together); null until the node has its peer client.
   */
  private volatile AppendDrivers appendDrivers;

  RemoteViewHost views;

  /** Cluster mode: the epoch this node is sealed at, kept durably; null for a static layout. */
  SealedEpoch sealedEpoch;

  /** Cluster mode: the link to the agreed layout; null for a static layout. */
  ClusterMembership membership;

  /** The disk-space alarm of the data directory; null without one. */
  DiskAlarm diskAlarm;

  /** Cluster mode: takes the trim marks of chains this node has left; null for a static layout. */
  LeftChainTrims leftChains;

  /** Cluster mode: the cluster's retention as ZooKeeper has it; null for a static layout. */
  volatile RetentionZnode clusterRetention;

  /**
   * {@code table} with its entry writes refused while the disk-space alarm is raised, and the
   * retention runtimes follow added to the sequencer's snapshot answers.
   */
  Map<PayloadCase, RpcHandler> withDiskAlarm(Map<PayloadCase, RpcHandler> table) {
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
  io.vcorfu.server.cluster.LogPrefixTrim logTrim;

  /** Cluster mode: this node's run for manager; null for a static layout. */
  ClusterManager manager;

  /** Cluster mode: rebuilding-replica duties (see {@link Rejoin}); null for a static layout. */
  Rejoin rejoin;

  /** Cluster mode: whose data this node's directory holds (see {@link NodeIdentity}). */
  NodeIdentity identity;

  private Node(NodeConfig config, Transport transport) {
    this.config = config;
    this.transport = transport;
    this.diskAlarm =
        config.durable()
            ? new DiskAlarm(String.valueOf(config.listen()), config.dataDir(), 0)
            : null;
    if (config.access() != null && config.access().aclFile() != null) {
      grants = io.vcorfu.server.access.AclFile.open(config.access().aclFile());
    }
    this.entry = Authorization.entry(config.access(), () -> grants, this::answer);
  }

  /** Starts a node; returns once it is bound and its local roles are open. */
  public static Node start(NodeConfig config, Transport transport) {
    Node node = new Node(config, transport);
    try {
      NodeStartup.startRoles(node);
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
   * Cluster mode: the passes that take the trim marks of the chains this node has left (for tests:
   * one now, and how many have begun); null for a node without a cluster.
   */
  public LeftChainTrims leftChains() {
    return leftChains;
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

  Roles roles() {
    if (appendDrivers == null && peers != null && binding != null) {
      appendDrivers = new AppendDrivers(binding.endpoint(), this::answer, peers);
    }
    return new Roles(sequencerSeat.role(), logReplica, streamReplica, store, views, appendDrivers);
  }

  /**
   * Cluster mode: the dispatcher. The epoch check is against the epoch this node is sealed at, so a
   * request of an older epoch is refused with {@code WrongEpoch} as soon as the seal is recorded;
   * every role request also passes the {@link ServingGate}.
   */
  RequestDispatcher clusterDispatcher(Endpoint me) {
    Map<PayloadCase, RpcHandler> gated = new java.util.EnumMap<>(PayloadCase.class);
    withDiskAlarm(RoleHandlers.table(roles(), layout::get, fence))
        .forEach((k, h) -> gated.put(k, gate.gated(h)));
    return RequestDispatcher.builder(fence::epoch)
        .on(PayloadCase.PING, r -> done(reports.pingResponse(me, r.getPing().getSpace())))
        .on(PayloadCase.RUN_COMMAND, commands)
        .on(PayloadCase.COMPACT, r -> compact(r.getCompact()))
        .on(PayloadCase.VERIFY, r -> NodeStorage.verify(store, r.getVerify()))
        .on(PayloadCase.GET_LAYOUT, r -> layoutAnswer(r.getGetLayout()))
        .on(PayloadCase.SEAL, r -> adoption.seal(r.getSeal().getEpoch()))
        .on(PayloadCase.REMOVE_NODE, r -> ManagerRequests.removeNode(manager, r.getRemoveNode()))
        .on(PayloadCase.ADD_NODE, r -> ManagerRequests.addNode(manager, r.getAddNode()))
        .onAll(gated)
        .build();
  }

  private volatile RequestObserver requestObserver;

  /** Where the node's {@code RUN_COMMAND} requests go (see {@link CommandRequests#serve}). */
  public final CommandRequests commands = new CommandRequests();

  /** The stores' forces, for {@link #observeForces}. */
  final ForceRelay forces = new ForceRelay();

  final AdoptedLayouts adopted = new AdoptedLayouts(20);

  /** The last (at most 20) layout changes this node adopted, newest first. */
  public List<AdoptedLayouts.Change> recentChanges() {
    return adopted.recent();
  }

  /** The highest global address this node's log replica holds; -1 when none or no replica. */
  public long logTail() {
    return reports.logTail();
  }

  /**
   * The last global address the cluster's sequencer issued (-1 when none), as it answers within
   * half a second; null when it does not.
   */
  public Long globalTail() {
    return reports.globalTail();
  }

  /**
   * Every stream this node's stream replica holds, in id order, with its tail (the highest stream
   * address held) and trim mark; null when the node holds no stream replica or it does not answer.
   */
  public io.vcorfu.protocol.proto.StreamTailResponse streamTails() {
    return reports.streamTails();
  }

  /** Has {@code observer} see every request this node answers from now on (null: none). */
  public void observeRequests(RequestObserver observer) {
    requestObserver = observer;
  }

  /**
   * Has {@code observer} see every fsync of this node's storage from now on, including stores the
   * node opens later, after those made while no observer was attached (the node's recovery, its
   * copy before joining); null: none.
   */
  public void observeForces(io.vcorfu.logunit.ForceObserver observer) {
    forces.attach(observer);
  }

  CompletableFuture<Response> answer(Request request) {
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
    return reports.pingResponse(binding.endpoint(), true).getPing();
  }

  /** {@code other}'s answer to a ping (see {@link #status}), asked through this node's client. */
  public CompletableFuture<PingResponse> ping(Endpoint other) {
    return reports.ping(other);
  }

  /** The node's own requests (ping, layout, seal), then {@code roles}, behind the epoch check. */
  RequestDispatcher dispatcher(Endpoint me, Map<PayloadCase, RpcHandler> roles) {
    return RequestDispatcher.builder(() -> layout.get().epoch())
        .on(PayloadCase.PING, r -> done(reports.pingResponse(me, r.getPing().getSpace())))
        .on(PayloadCase.RUN_COMMAND, commands)
        .on(PayloadCase.COMPACT, r -> compact(r.getCompact()))
        .on(PayloadCase.VERIFY, r -> NodeStorage.verify(store, r.getVerify()))
        .on(PayloadCase.GET_LAYOUT, r -> layoutAnswer(r.getGetLayout()))
        .on(PayloadCase.SEAL, r -> adoption.seal(r.getSeal().getEpoch()))
        .onAll(roles)
        .build();
  }

  /**
   * How this node's storage uses its disk, and the lowest global address the log must keep for its
   * streams (0 while it rebuilds or copies streams from the log: it cannot tell yet).
   */
  public io.vcorfu.protocol.proto.StorageSpace space() {
    return reports.space();
  }

  /** Cluster mode: the last rebuild that finished here (kept after promotion), or null. */
  public io.vcorfu.protocol.proto.RebuildProgress lastRebuild() {
    Rejoin r = rejoin;
    return r == null ? null : r.lastRebuild();
  }

  /** Cluster mode: slots copied from the log for the stream chains it took up, since its start. */
  public long takenUpFromLog() {
    Rejoin r = rejoin;
    return r == null ? 0 : r.takenUpFromLog();
  }

  /** Cluster mode: what it copied at its start before it joined its chains ({@link Rejoin}). */
  public io.vcorfu.server.cluster.PreJoinCopy.Result preJoinCopy() {
    Rejoin r = rejoin;
    return r == null ? null : r.preJoinCopy();
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

  /** The layout recorded in the data directory's layout store; null when it holds none. */
  Versioned<Layout> storedLayout() {
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
    closeQuietly(grants instanceof AutoCloseable c ? c : null);
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
