package io.vcorfu.server;

import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.FileLayoutStore;
import io.vcorfu.layout.Layout;
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
import io.vcorfu.protocol.proto.GetLayoutResponse;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.sequencer.LeaseMarker;
import io.vcorfu.sequencer.ReadLeases;
import io.vcorfu.sequencer.SequencerBootstrap;
import io.vcorfu.sequencer.SequencerService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
  private final EpochFence fence = new EpochFence(0);

  /** Answers NotServing until the roles are open, then routes to them. */
  private volatile RpcHandler dispatcher = RequestDispatcher.builder(() -> 0).build();

  private Transport.ServerBinding binding;
  private DataDirectoryLock dataDirLock;
  private LayoutStore layoutStore;
  private ReplicaStore store;
  private LogReplica logReplica;
  private StreamReplica streamReplica;
  private SequencerService sequencer;
  private ReadLeases leases;
  private RpcClient peers;
  private SequencerBootstrap bootstrap;
  private RemoteViewHost views;

  private Node(NodeConfig config, Transport transport) {
    this.config = config;
    this.transport = transport;
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
    ReadLeases l = leases;
    return l == null ? 0 : l.holders();
  }

  /** Completes when every role this node hosts is serving (the sequencer has bootstrapped). */
  public CompletableFuture<Void> ready() {
    return bootstrap == null ? CompletableFuture.completedFuture(null) : bootstrap.done();
  }

  private void startRoles() {
    lifeCycle.transition(LifeCycle.State.STARTING);
    if (config.durable()) {
      // Before anything else touches the directory (or the port): a second node on it must not
      // rewrite its layout or open its replicas.
      dataDirLock = DataDirectoryLock.acquire(config.dataDir());
    }
    // The port is bound first (port 0 picks one, and the layout's roles depend on it). Until the
    // layout is chosen every request is answered NotServing; while the roles open, only the node's
    // own requests (ping, layout, seal) are served; then the dispatcher is bound to the open roles.
    binding = transport.bind(config.listen(), r -> dispatcher.handle(r));
    Endpoint me = binding.endpoint();
    Layout chosen = chooseLayout(me);
    fence.seal(chosen.epoch());
    layout.set(chosen);
    dispatcher = dispatcher(me, Map.of());
    openRoles(chosen, me);
    Roles roles = new Roles(sequencer, leases, bootstrap, logReplica, streamReplica, store, views);
    dispatcher = dispatcher(me, RoleHandlers.table(roles, layout::get, fence));
    if (bootstrap != null) {
      bootstrap.start();
    }
    lifeCycle.transition(LifeCycle.State.RUNNING);
    LOG.info(
        "node {} serving epoch {} as{}{}{}{}",
        me,
        chosen.epoch(),
        sequencer != null ? " sequencer" : "",
        logReplica != null ? " log-replica" : "",
        streamReplica != null ? " stream-replica" : "",
        views != null ? " remote-view-host" : "");
  }

  /** The node's own requests (ping, layout, seal), then {@code roles}, behind the epoch check. */
  private RequestDispatcher dispatcher(Endpoint me, Map<PayloadCase, RpcHandler> roles) {
    return RequestDispatcher.builder(() -> layout.get().epoch())
        .on(
            PayloadCase.PING,
            r ->
                done(
                    Response.newBuilder()
                        .setPing(PingResponse.newBuilder().setNodeId(String.valueOf(me)))
                        .build()))
        .on(PayloadCase.GET_LAYOUT, r -> done(layoutResponse()))
        .on(PayloadCase.SEAL, r -> seal(r.getSeal().getEpoch()))
        .onAll(roles)
        .build();
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
      sequencer = new SequencerService(new io.vcorfu.sequencer.Sequencer());
      leases = new ReadLeases(leaseMarker(chosen, me));
      sequencer.onIssued(leases::issued);
      peers = transport.newClient(ClientOptions.defaults());
      bootstrap = new SequencerBootstrap(new BootstrapPeers(peers, chosen), chosen, sequencer);
    }
    if (streamReplica != null) {
      // The remote-view host reads what this node holds (its stream replica, its sequencer's
      // tails) in process, and only the rest over the network.
      StreamReplica replica = streamReplica;
      SequencerService localSequencer = sequencer;
      SequencerBootstrap localBootstrap = bootstrap;
      ReadLeases localLeases = leases;
      views =
          new RemoteViewHost(
              transport,
              () -> binding.endpoint(),
              config,
              cluster ->
                  new LocalReplicaLog(
                      cluster,
                      me,
                      layout::get,
                      replica,
                      localSequencer,
                      localBootstrap,
                      localLeases));
    }
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

  private Response layoutResponse() {
    Layout l = layout.get();
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
            .directory(config.dataDir().resolve("replicas"));
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
      try {
        Files.createDirectories(config.dataDir());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create data directory " + config.dataDir(), e);
      }
      layoutStore = new FileLayoutStore(config.dataDir().resolve("layout.json"));
      Versioned<Layout> v = storedLayout();
      stored = v == null ? null : v.value();
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
    closeQuietly(views);
    if (binding != null) {
      binding.close();
    }
    if (bootstrap != null) {
      bootstrap.close();
    }
    if (leases != null) {
      leases.close();
    }
    if (sequencer != null) {
      sequencer.close();
    }
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
