package io.vcorfu.server;

import io.vcorfu.layout.FileLayoutStore;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.Versioned;
import io.vcorfu.logunit.FsyncPolicy;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StorageMode;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.logunit.StreamReplica;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.LifeCycle;
import io.vcorfu.protocol.Transport;
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
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starting a node: it takes its data directory, binds its port, chooses its layout (or, in cluster
 * mode, takes the layout and sealed epoch it recorded before), opens the storage and roles that
 * layout gives it, and sets them in the node's fields; the node's dispatcher is bound to the open
 * roles last.
 *
 * <p>The data directory's lock ({@link DataDirectoryLock}) is taken before anything else touches
 * the directory (or the port).
 */
final class NodeStartup {
  // Logged as the node: its start-up lines have always come under the node's logger name.
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);

  private final Node node;
  private final NodeConfig config;
  private final Transport transport;

  private NodeStartup(Node node) {
    this.node = node;
    this.config = node.config;
    this.transport = node.transport;
  }

  /** Starts {@code node}: returns once it is bound and its local roles are open. */
  static void startRoles(Node node) {
    new NodeStartup(node).start();
  }

  private void start() {
    node.lifeCycle.transition(LifeCycle.State.STARTING);
    if (config.cluster() != null) {
      startClustered();
      return;
    }
    if (config.durable()) {
      // Before anything else touches the directory (or the port): a second node on it must not
      // rewrite its layout or open its replicas.
      node.dataDirLock = DataDirectoryLock.acquire(config.dataDir());
    }
    // The port is bound first (port 0 picks one, and the layout's roles depend on it). Until the
    // layout is chosen every request is answered NotServing; while the roles open, only the node's
    // own requests (ping, layout, seal) are served; then the dispatcher is bound to the open roles.
    node.binding = transport.bind(config.listen(), node.entry);
    Endpoint me = node.binding.endpoint();
    Layout chosen = chooseLayout(me);
    node.fence.seal(chosen.epoch());
    node.layout.set(chosen);
    node.dispatcher = node.dispatcher(me, Map.of());
    openRoles(chosen, me);
    node.dispatcher =
        node.dispatcher(
            me, node.withDiskAlarm(RoleHandlers.table(node.roles(), node.layout::get, node.fence)));
    SequencerRole role = node.sequencerSeat.role();
    if (role != null) {
      role.start();
    }
    node.lifeCycle.transition(LifeCycle.State.RUNNING);
    LOG.info(
        "node {} serving epoch {} as{}{}{}{}",
        me,
        chosen.epoch(),
        role != null ? " sequencer" : "",
        node.logReplica != null ? " log-replica" : "",
        node.streamReplica != null ? " stream-replica" : "",
        node.views != null ? " remote-view-host" : "");
  }

  /**
   * Cluster mode: the node binds, opens both replica roles and the remote-view host (any node may
   * be given any role by a later layout), takes the layout and sealed epoch it recorded before, and
   * starts following the agreed layout; it serves role requests only once it has adopted a layout
   * naming it, at the epoch it is sealed at, under a valid layout lease.
   */
  private void startClustered() {
    if (config.durable()) {
      node.dataDirLock = DataDirectoryLock.acquire(config.dataDir());
    }
    node.binding = transport.bind(config.listen(), node.entry);
    Endpoint me = node.binding.endpoint();
    node.identity =
        config.durable()
            ? NodeIdentity.open(config.dataDir(), config.cluster().name(), me)
            : NodeIdentity.inMemory(config.cluster().name(), me);
    Layout stored = null;
    if (config.durable()) {
      stored = openLayoutStore();
      node.sealedEpoch = SealedEpoch.open(config.dataDir().resolve("sealed-epoch"));
    } else {
      node.sealedEpoch = SealedEpoch.inMemory();
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
    node.fence.seal(Math.max(node.sealedEpoch.get(), stored == null ? 0 : stored.epoch()));
    node.layout.set(stored);
    try {
      node.store = ReplicaStore.open(storage());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the replica storage of " + me, e);
    }
    node.logReplica = node.store.logReplica();
    node.streamReplica = node.store.streamReplica();
    node.peers = transport.newClient(ClientOptions.defaults());
    node.rejoin =
        new Rejoin(
            me,
            node.store,
            transport,
            config.durable() ? config.dataDir() : null,
            config.cluster().rebuildBytesPerSecond(),
            config.cluster().rebuildForegroundP99());
    // Before it serves: a node the manager removed copies what it will rebuild, out of the chains.
    node.rejoin.copyBeforeJoining(transport, config.cluster());
    openViews(me);
    node.dispatcher = node.clusterDispatcher(me);
    NodeCalls calls = new NodeCalls(node.peers);
    node.membership =
        ClusterMembership.start(
            config.cluster(), me, calls, node.fence::epoch, node.adoption::adopt);
    node.manager = ClusterManager.start(me, config.cluster(), node.membership.store(), calls);
    node.clusterRetention =
        RetentionZnode.watch(node.membership.store().client(), config.cluster().name());
    if (config.access() != null) {
      node.grants =
          io.vcorfu.server.access.AclZnode.watch(
              node.membership.store().client(), config.cluster().name());
    }
    node.logTrim =
        new io.vcorfu.server.cluster.LogPrefixTrim(
            calls,
            node.layout::get,
            node::managing,
            this::logDecisions,
            io.vcorfu.server.cluster.LogPrefixTrim.DEFAULT_INTERVAL,
            config.logRetention());
    node.leftChains = LeftChainTrims.start(me, node.store, node.layout::get, calls);
    node.lifeCycle.transition(LifeCycle.State.RUNNING);
    LOG.info(
        "node {} joined cluster {} at ZooKeeper {}{}; data directory incarnation {}{}",
        me,
        cluster,
        config.cluster().zookeeper(),
        stored == null
            ? " (no layout recorded yet: it serves once the cluster's layout names it)"
            : " (last layout: epoch " + stored.epoch() + ")",
        node.identity.incarnation(),
        node.identity.fresh() ? " (new)" : "");
  }

  /**
   * What decides, under {@code layout}, the global addresses the log's prefix trim finds undecided
   * (through the node's append drivers); IllegalStateException before the node reaches its peers.
   */
  private io.vcorfu.server.cluster.LogDecisions logDecisions(Layout layout) {
    AppendDrivers d = node.roles().drivers();
    if (d == null) {
      throw new IllegalStateException("the node cannot reach its peers yet");
    }
    return d.decisionsFor(layout);
  }

  /** Opens the roles {@code chosen} gives {@code me}; the sequencer's bootstrap is not started. */
  private void openRoles(Layout chosen, Endpoint me) {
    try {
      boolean hostsLog = chosen.logServers().contains(me);
      boolean hostsStreams = chosen.streamServers().contains(me);
      if (hostsLog || hostsStreams) {
        // One engine for both replica roles: a write visiting both on this node is forced once.
        node.store = ReplicaStore.open(storage());
      }
      if (hostsLog) {
        node.logReplica = node.store.logReplica();
      }
      if (hostsStreams) {
        node.streamReplica = node.store.streamReplica();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the replica storage of " + me, e);
    }
    if (chosen.sequencer().equals(me)) {
      SequencerService sequencer = new SequencerService(new Sequencer());
      ReadLeases leases = new ReadLeases(leaseMarker(chosen, me));
      sequencer.onIssued(leases::issued);
      node.peers = transport.newClient(ClientOptions.defaults());
      node.logTrim =
          new io.vcorfu.server.cluster.LogPrefixTrim(
              new io.vcorfu.server.cluster.NodeCalls(node.peers),
              node.layout::get,
              () -> true,
              this::logDecisions,
              io.vcorfu.server.cluster.LogPrefixTrim.DEFAULT_INTERVAL,
              config.logRetention());
      node.sequencerSeat.hold(
          new SequencerRole(
              sequencer,
              leases,
              new SequencerBootstrap(new BootstrapPeers(node.peers, chosen), chosen, sequencer),
              0));
    }
    if (node.streamReplica != null) {
      openViews(me);
    }
  }

  /**
   * The remote-view host: it reads what this node holds (its stream replica, its sequencer's tails)
   * in process, and only the rest over the network.
   */
  private void openViews(Endpoint me) {
    StreamReplica replica = node.streamReplica;
    node.views =
        new RemoteViewHost(
            transport,
            () -> node.binding.endpoint(),
            config,
            cluster ->
                new LocalReplicaLog(
                    cluster, me, node.layout::get, replica, node.sequencerSeat::role));
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

  private StorageOptions storage() {
    if (!config.durable()) {
      return StorageOptions.memory();
    }
    StorageOptions.Builder b =
        StorageOptions.builder()
            .mode(StorageMode.DURABLE)
            .directory(config.dataDir().resolve("replicas"))
            .forceObserver((nanos, records) -> node.forces.forced(nanos, records));
    if (config.segmentBytes() > 0) {
      b.segmentSize(config.segmentBytes());
    }
    if (config.compactionBytesPerSecond() > 0) {
      b.compactionBytesPerSecond(config.compactionBytesPerSecond());
    }
    if (config.fsyncInterval() != null) {
      b.fsyncPolicy(FsyncPolicy.INTERVAL).fsyncInterval(config.fsyncInterval());
    }
    // A write asked for while serving a request is answered on that request's event loop, where
    // its response is sent, not on the storage's completion thread first.
    b.completionHome(transport::currentServerLoop);
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
      Layout given = Node.readLayout(config.layoutFile());
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
    if (node.layoutStore != null) {
      Versioned<Layout> v = node.storedLayout();
      if (v == null || !v.value().equals(chosen)) {
        node.layoutStore
            .compareAndSet(v == null ? LayoutStore.NO_VERSION : v.version(), chosen)
            .join();
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
    node.layoutStore = new FileLayoutStore(config.dataDir().resolve("layout.json"));
    Versioned<Layout> v = node.storedLayout();
    return v == null ? null : v.value();
  }
}
