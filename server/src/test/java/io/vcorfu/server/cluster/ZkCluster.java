package io.vcorfu.server.cluster;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.TestEnsembles;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;

/**
 * A cluster of durable nodes in this JVM, on the in-JVM transport (every message serialized, fault
 * rules available), following a layout agreed in a real in-process ZooKeeper ({@link
 * TestingServer}, or a {@link TestingCluster} ensemble). A node is "killed" by closing it abruptly;
 * {@link #restart} starts it again on its data directory; {@link #faults()} cuts nodes off the
 * network, the other nodes or (on a cluster {@linkplain #startLinked linked} to ZooKeeper)
 * ZooKeeper.
 */
final class ZkCluster implements AutoCloseable {
  static final String NAME = "test";

  /** The ZooKeeper session timeout of the nodes on an ensemble (a standalone server: 10 s). */
  static final Duration ENSEMBLE_SESSION = Duration.ofSeconds(3);

  /**
   * The nodes keep the global log's entries for the tests' whole length: fault tests read it back
   * and compare its replicas afterwards; the log's trim is tested with an explicit retention
   * ({@code Node.trimLogNow(Duration)}).
   */
  static final Duration LOG_RETENTION = Duration.ofMinutes(10);

  private final Closeable zk;
  private final String connectString;
  private final InJvmTransport transport = new InJvmTransport();
  private final Path tmp;
  private ClusterConfig config;
  private final List<Endpoint> endpoints = new ArrayList<>();
  private final Map<Endpoint, Node> nodes = new ConcurrentHashMap<>();
  private final List<ClusterStreamLog> clients = new ArrayList<>();
  private final ClusterFaults faults = new ClusterFaults(transport, NAME);
  private final ZkLayoutStore store;

  /** Each node's configuration made from the cluster's ({@link #startEach}). */
  private java.util.function.BiFunction<Endpoint, ClusterConfig, ClusterConfig> perNode =
      (e, cfg) -> cfg;

  private ZkCluster(Closeable zk, String connectString, Duration session, Path tmp, int n) {
    this(zk, connectString, session, tmp, n, Duration.ofMillis(100), Duration.ofMillis(1000));
  }

  private ZkCluster(
      Closeable zk,
      String connectString,
      Duration session,
      Path tmp,
      int n,
      Duration probeInterval,
      Duration failureTimeout) {
    this.zk = zk;
    this.connectString = connectString;
    this.tmp = tmp;
    ClusterConfig probing =
        ClusterConfig.of(connectString, NAME)
            .withProbing(probeInterval, failureTimeout)
            .withLayoutLease(Duration.ofMillis(500));
    this.config =
        new ClusterConfig(
            connectString,
            NAME,
            probing.layoutLease(),
            probing.probeInterval(),
            probing.failureTimeout(),
            session);
    // Tests of healing onto members ask for it; elsewhere a short chain waits for its node.
    this.config = config.withMemberHealDelay(Duration.ofMinutes(10));
    for (int i = 1; i <= n; i++) {
      endpoints.add(new Endpoint("node-" + i, 9000 + i));
    }
    this.store = ZkLayoutStore.connect(connectString, NAME, Duration.ofSeconds(10));
  }

  /** {@code n} nodes started, and the first layout (replication {@code r}) committed. */
  static ZkCluster start(Path tmp, int n, int r) throws Exception {
    TestingServer server = TestEnsembles.server();
    return start(
        new ZkCluster(
            server, server.getConnectString(), ClusterConfig.DEFAULT_SESSION_TIMEOUT, tmp, n),
        r);
  }

  /** As {@link #start(Path, int, int)}, every node's configuration {@code tweak}ed. */
  static ZkCluster start(
      Path tmp, int n, int r, java.util.function.UnaryOperator<ClusterConfig> tweak)
      throws Exception {
    TestingServer server = TestEnsembles.server();
    ZkCluster c =
        new ZkCluster(
            server, server.getConnectString(), ClusterConfig.DEFAULT_SESSION_TIMEOUT, tmp, n);
    c.config = tweak.apply(c.config);
    return start(c, r);
  }

  /**
   * As {@link #start(Path, int, int, java.util.function.UnaryOperator)}, every node reaching
   * ZooKeeper through a link of its own ({@link ZkLink}), which {@link
   * ClusterFaults#cutFromZooKeeper} cuts.
   */
  static ZkCluster startLinked(
      Path tmp, int n, int r, java.util.function.UnaryOperator<ClusterConfig> tweak)
      throws Exception {
    return startLinked(tmp, n, tweak, nodes -> LayoutChanges.initial(NAME, nodes, r));
  }

  /**
   * As {@link #startLinked(Path, int, int, java.util.function.UnaryOperator)}, from {@code first}.
   */
  static ZkCluster startLinked(
      Path tmp,
      int n,
      java.util.function.UnaryOperator<ClusterConfig> tweak,
      java.util.function.Function<List<Endpoint>, Layout> first)
      throws Exception {
    TestingServer server = TestEnsembles.server();
    ZkCluster c =
        new ZkCluster(
            server, server.getConnectString(), ClusterConfig.DEFAULT_SESSION_TIMEOUT, tmp, n);
    c.config = tweak.apply(c.config);
    try {
      for (Endpoint e : c.endpoints) {
        c.faults.link(e, new ZkLink(server.getConnectString()));
      }
    } catch (java.io.IOException e) {
      c.close();
      throw e;
    }
    return start(c, first);
  }

  /**
   * As {@link #start(Path, int, int)}, each node's configuration made by {@code tweak} from the
   * cluster's (for nodes that judge silence differently from the others).
   */
  static ZkCluster startEach(
      Path tmp,
      int n,
      int r,
      java.util.function.BiFunction<Endpoint, ClusterConfig, ClusterConfig> tweak)
      throws Exception {
    TestingServer server = TestEnsembles.server();
    ZkCluster c =
        new ZkCluster(
            server, server.getConnectString(), ClusterConfig.DEFAULT_SESSION_TIMEOUT, tmp, n);
    c.perNode = tweak;
    return start(c, r);
  }

  /** As {@link #start(Path, int, int)}, the managers judging silence by {@code failureTimeout}. */
  static ZkCluster start(Path tmp, int n, int r, Duration failureTimeout) throws Exception {
    return start(tmp, n, r, Duration.ofMillis(100), failureTimeout);
  }

  /** As {@link #start(Path, int, int)}, the managers probing every {@code probeInterval}. */
  static ZkCluster start(Path tmp, int n, int r, Duration probeInterval, Duration failureTimeout)
      throws Exception {
    TestingServer server = TestEnsembles.server();
    return start(
        new ZkCluster(
            server,
            server.getConnectString(),
            ClusterConfig.DEFAULT_SESSION_TIMEOUT,
            tmp,
            n,
            probeInterval,
            failureTimeout),
        r);
  }

  /**
   * {@code n} nodes on a started ZooKeeper {@code ensemble} (closed with the cluster), with a
   * session timeout of {@link #ENSEMBLE_SESSION}, and the first layout committed.
   */
  static ZkCluster startOnEnsemble(TestingCluster ensemble, Path tmp, int n, int r)
      throws Exception {
    return start(new ZkCluster(ensemble, ensemble.getConnectString(), ENSEMBLE_SESSION, tmp, n), r);
  }

  /** {@link #startOnEnsemble}, every node with a layout lease of {@code layoutLease}. */
  static ZkCluster startOnEnsemble(
      TestingCluster ensemble, Path tmp, int n, int r, Duration layoutLease) throws Exception {
    ZkCluster c = new ZkCluster(ensemble, ensemble.getConnectString(), ENSEMBLE_SESSION, tmp, n);
    c.perNode = (e, cfg) -> cfg.withLayoutLease(layoutLease);
    return start(c, r);
  }

  /**
   * {@code n} nodes started, and {@code first} of their endpoints committed as the first layout.
   */
  static ZkCluster start(Path tmp, int n, java.util.function.Function<List<Endpoint>, Layout> first)
      throws Exception {
    TestingServer server = TestEnsembles.server();
    return start(
        new ZkCluster(
            server, server.getConnectString(), ClusterConfig.DEFAULT_SESSION_TIMEOUT, tmp, n),
        first);
  }

  private static ZkCluster start(ZkCluster c, int r) throws Exception {
    return start(c, nodes -> LayoutChanges.initial(NAME, nodes, r));
  }

  private static ZkCluster start(
      ZkCluster c, java.util.function.Function<List<Endpoint>, Layout> first) throws Exception {
    try {
      for (Endpoint e : c.endpoints) {
        c.startNode(e);
      }
      c.store.compareAndSet(LayoutStore.NO_VERSION, first.apply(c.endpoints)).join();
      return c;
    } catch (Exception e) {
      c.close();
      throw e;
    }
  }

  private void startNode(Endpoint e) {
    startNode(e, perNode.apply(e, config));
  }

  private void startNode(Endpoint e, ClusterConfig config) {
    ZkLink link = faults.linkOf(e);
    if (link != null) {
      config =
          new ClusterConfig(
              link.connectString(),
              config.name(),
              config.layoutLease(),
              config.probeInterval(),
              config.failureTimeout(),
              config.sessionTimeout(),
              config.rebuildBytesPerSecond(),
              config.rebuildForegroundP99(),
              config.memberHealDelay(),
              config.zookeeperAuth(),
              config.zookeeperTls(),
              config.preJoinCopyLimit());
    }
    NodeConfig cfg =
        NodeConfig.durable(e, tmp.resolve(e.host()))
            .withNoEarlierLeases()
            .withLogRetention(LOG_RETENTION)
            .inCluster(config);
    nodes.put(e, Node.start(cfg, faults.nodeLinks(e)));
  }

  /**
   * Starts a node outside the layout (spare-1, spare-2, ...), following the cluster like any node;
   * returns its endpoint.
   */
  Endpoint startSpare() {
    return startSpare(config.rebuildBytesPerSecond());
  }

  /** {@link #startSpare()}, copying at most {@code bytesPerSecond} when it rebuilds. */
  Endpoint startSpare(long bytesPerSecond) {
    Endpoint e = new Endpoint("spare-" + (++spares), 9100 + spares);
    startNode(e, config.withRebuildRate(bytesPerSecond));
    return e;
  }

  private int spares;

  List<Endpoint> endpoints() {
    return List.copyOf(endpoints);
  }

  Node node(Endpoint e) {
    return nodes.get(e);
  }

  InJvmTransport transport() {
    return transport;
  }

  /** Closes the node at once; its peers see every request to it fail. */
  void kill(Endpoint e) {
    Node n = nodes.remove(e);
    if (n != null) {
      n.close();
    }
  }

  void restart(Endpoint e) {
    kill(e);
    startNode(e);
  }

  /**
   * Restarts {@code e} on its data directory (emptied first with {@code wiped}), copying at most
   * {@code bytesPerSecond} while it rebuilds, and nothing before it joins (the rebuild after the
   * join is what these restarts slow down; see {@link PreJoinCopy}).
   */
  void restart(Endpoint e, boolean wiped, long bytesPerSecond) throws java.io.IOException {
    restart(
        e,
        wiped,
        c -> c.withRebuildRate(bytesPerSecond).withPreJoinCopyLimit(java.time.Duration.ZERO));
  }

  /**
   * Restarts {@code e} (emptied first with {@code wiped}) with the configuration {@code tweak}ed.
   */
  void restart(Endpoint e, boolean wiped, java.util.function.UnaryOperator<ClusterConfig> tweak)
      throws java.io.IOException {
    kill(e);
    if (wiped) {
      wipe(e);
    }
    startNode(e, tweak.apply(config));
  }

  /** Kills {@code e}, deletes its data directory, and starts it again on an empty one. */
  void restartWiped(Endpoint e) throws java.io.IOException {
    kill(e);
    wipe(e);
    startNode(e);
  }

  private void wipe(Endpoint e) throws java.io.IOException {
    Path dir = tmp.resolve(e.host());
    if (java.nio.file.Files.exists(dir)) {
      try (var paths = java.nio.file.Files.walk(dir)) {
        for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          java.nio.file.Files.delete(p);
        }
      }
    }
  }

  /** The data directory of {@code e}. */
  Path dataDir(Endpoint e) {
    return tmp.resolve(e.host());
  }

  /** The network and ZooKeeper faults of this cluster's nodes. */
  ClusterFaults faults() {
    return faults;
  }

  /** The ZooKeeper connect string the nodes use. */
  String connectString() {
    return connectString;
  }

  /** The node that is the cluster's manager now, if any. */
  java.util.Optional<Endpoint> manager() {
    return nodes.entrySet().stream()
        .filter(x -> x.getValue().managing())
        .map(Map.Entry::getKey)
        .findFirst();
  }

  Versioned<Layout> agreed() {
    return store.get().join();
  }

  ZkLayoutStore store() {
    return store;
  }

  /** Stops the ZooKeeper server (its data stays); {@link #restartZooKeeper} brings it back. */
  void stopZooKeeper() throws java.io.IOException {
    ((TestingServer) zk).stop();
  }

  void restartZooKeeper() throws Exception {
    ((TestingServer) zk).restart();
  }

  /** Waits until the agreed layout satisfies {@code condition}; returns it. */
  Layout awaitLayout(String what, java.util.function.Predicate<Layout> condition) {
    return Awaitility.await(what)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> agreed().value(), condition);
  }

  /**
   * Waits until the sequencer's first epoch is committed and every node of the layout has recorded
   * its data directory's incarnation in it; returns that layout.
   */
  Layout awaitStarted() {
    return awaitLayout(
        "epoch 2 with every node's incarnation",
        x -> x.epoch() >= 2 && x.incarnations().keySet().containsAll(x.allServers()));
  }

  /** Waits until every running node has adopted a layout of {@code epoch} or later. */
  void awaitAdopted(long epoch) {
    Awaitility.await("every node at epoch " + epoch)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                nodes.values().stream()
                    .allMatch(n -> n.layout() != null && n.layout().epoch() >= epoch));
  }

  /** A client connected through {@code seed}; closed with the cluster. */
  ClusterStreamLog client(Endpoint seed) {
    return client(seed, clientOptions());
  }

  /** The options of {@link #client(Endpoint)}: requests time out after 2 s. */
  static StreamLogOptions clientOptions() {
    return StreamLogOptions.defaults()
        .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)));
  }

  /** A client connected through {@code seed} with {@code options}; closed with the cluster. */
  ClusterStreamLog client(Endpoint seed, StreamLogOptions options) {
    ClusterStreamLog log = ClusterStreamLog.connect(transport, seed, options);
    synchronized (clients) {
      clients.add(log);
    }
    return log;
  }

  /**
   * A runtime over the cluster, connected through every node this cluster started (the first that
   * answers gives the layout), with {@code options}; the caller closes it.
   */
  VCorfuRuntime runtime(StreamLogOptions options) {
    return VCorfuRuntime.using(ClusterStreamLog.connect(transport, endpoints, options));
  }

  @Override
  public void close() throws java.io.IOException {
    synchronized (clients) {
      for (ClusterStreamLog c : clients) {
        c.close();
      }
    }
    for (Node n : nodes.values()) {
      n.close();
    }
    nodes.clear();
    store.close();
    transport.close();
    faults.close();
    zk.close();
  }
}
