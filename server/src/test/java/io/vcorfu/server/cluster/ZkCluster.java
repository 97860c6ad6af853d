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
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;

/**
 * A cluster of durable nodes in this JVM, on the in-JVM transport (every message serialized, fault
 * rules available), following a layout agreed in a real in-process ZooKeeper ({@link
 * TestingServer}, or a {@link TestingCluster} ensemble). A node is "killed" by closing it abruptly;
 * {@link #restart} starts it again on its data directory; {@link #partition} cuts it off the
 * network (not from ZooKeeper) until {@link #heal}; {@link #cutFromNodes} cuts it off the other
 * nodes only (clients still reach it). On a cluster {@linkplain #startLinked linked} to ZooKeeper,
 * {@link #cutFromZooKeeper} cuts one node off ZooKeeper.
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
  private final Set<Endpoint> cut = ConcurrentHashMap.newKeySet();
  private final Set<Endpoint> rejecting = ConcurrentHashMap.newKeySet();
  private final Map<Endpoint, List<FaultRule>> partitions = new LinkedHashMap<>();
  private final ZkLayoutStore store;

  /**
   * Each node's own link to ZooKeeper, when the cluster was started {@linkplain #startLinked
   * linked}.
   */
  private Map<Endpoint, ZkLink> links;

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
   * ZooKeeper through a link of its own ({@link ZkLink}), which {@link #cutFromZooKeeper} cuts.
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
    c.links = new ConcurrentHashMap<>();
    try {
      for (Endpoint e : c.endpoints) {
        c.links.put(e, new ZkLink(server.getConnectString()));
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
    ZkLink link = links == null ? null : links.get(e);
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
    nodes.put(e, Node.start(cfg, new NodeLinks(transport, e, cut, rejecting)));
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

  /**
   * Cuts {@code e} off the network: every request to it and every answer from it is dropped, and
   * its own calls to other nodes time out. Its ZooKeeper session is not touched.
   */
  synchronized void partition(Endpoint e) {
    List<FaultRule> rules =
        List.of(
            transport.faults().add(FaultRule.requests().to(e).drop()),
            transport.faults().add(FaultRule.responses().to(e).drop()));
    partitions.put(e, rules);
    cut.add(e);
  }

  /**
   * Cuts {@code e} off the other nodes, both ways, as a firewall rejecting the connections does:
   * their calls to it and its calls to them are refused at once. Clients still reach it, and it
   * still reaches ZooKeeper. {@link #heal} ends it.
   */
  synchronized void cutFromNodes(Endpoint e) {
    rejecting.add(e);
  }

  /** Cuts {@code e} off ZooKeeper (the cluster must have been started {@link #startLinked}). */
  void cutFromZooKeeper(Endpoint e) {
    links.get(e).cut();
  }

  /**
   * Runs {@code action} the next time {@code e} sends ZooKeeper a {@code sync} of {@code path}
   * (below the cluster's znode, {@code /vcorfu/<name>}), dropping that request if {@code drop},
   * else after forwarding it (the cluster must have been started {@link #startLinked}).
   */
  void onSync(Endpoint e, String path, boolean drop, Runnable action) {
    links.get(e).onSync("/vcorfu/" + NAME + path, drop, action);
  }

  /**
   * Cuts {@code e} off ZooKeeper and the other nodes ({@link #cutFromNodes}) just after it next
   * confirms its layout with ZooKeeper: 100 ms after it sends the {@code sync} its lease renewal
   * starts with, which ZooKeeper answers well within that, so its layout lease runs for nearly a
   * whole lease from the cut. Returns when it was cut ({@link System#nanoTime()}). The cluster must
   * have been started {@link #startLinked}.
   */
  long cutOffJustAfterItConfirmsItsLayout(Endpoint e) throws Exception {
    java.util.concurrent.CompletableFuture<Long> cut =
        new java.util.concurrent.CompletableFuture<>();
    onSync(
        e,
        "/layout",
        false,
        () ->
            java.util.concurrent.CompletableFuture.delayedExecutor(
                    100, java.util.concurrent.TimeUnit.MILLISECONDS)
                .execute(
                    () -> {
                      cutFromZooKeeper(e);
                      cutFromNodes(e);
                      cut.complete(System.nanoTime());
                    }));
    return cut.get(10, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Lets {@code e} reach ZooKeeper again. */
  void reconnectToZooKeeper(Endpoint e) {
    links.get(e).heal();
  }

  /** The data directory of {@code e}. */
  Path dataDir(Endpoint e) {
    return tmp.resolve(e.host());
  }

  /**
   * Cuts {@code e} off from the other nodes only: calls between it and them are lost, while it
   * still reaches itself, clients still reach it, and its ZooKeeper session is not touched (a node
   * behind a partition of the nodes' network, or whose peers' firewalls drop it). {@link #heal}
   * ends it.
   */
  void cutOffFromPeers(Endpoint e) {
    cut.add(e);
  }

  /** Ends the partition of {@code e}. */
  synchronized void heal(Endpoint e) {
    cut.remove(e);
    rejecting.remove(e);
    List<FaultRule> rules = partitions.remove(e);
    if (rules != null) {
      rules.forEach(transport.faults()::remove);
    }
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
    if (links != null) {
      for (ZkLink link : links.values()) {
        link.close();
      }
    }
    zk.close();
  }
}
