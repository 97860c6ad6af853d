package io.vcorfu.server.cluster;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;

/**
 * A cluster of durable nodes in this JVM, on the in-JVM transport (every message serialized, fault
 * rules available), following a layout agreed in a real in-process ZooKeeper ({@link
 * TestingServer}). A node is "killed" by closing it abruptly; {@link #restart} starts it again on
 * its data directory.
 */
final class ZkCluster implements AutoCloseable {
  static final String NAME = "test";

  private final TestingServer zk;
  private final InJvmTransport transport = new InJvmTransport();
  private final Path tmp;
  private final ClusterConfig config;
  private final List<Endpoint> endpoints = new ArrayList<>();
  private final Map<Endpoint, Node> nodes = new LinkedHashMap<>();
  private final List<ClusterStreamLog> clients = new ArrayList<>();
  private final ZkLayoutStore store;

  private ZkCluster(TestingServer zk, Path tmp, int n) {
    this.zk = zk;
    this.tmp = tmp;
    this.config =
        ClusterConfig.of(zk.getConnectString(), NAME)
            .withProbing(Duration.ofMillis(100), Duration.ofMillis(1000))
            .withLayoutLease(Duration.ofMillis(500));
    for (int i = 1; i <= n; i++) {
      endpoints.add(new Endpoint("node-" + i, 9000 + i));
    }
    this.store = ZkLayoutStore.connect(zk.getConnectString(), NAME, Duration.ofSeconds(10));
  }

  /** {@code n} nodes started, and the first layout (replication {@code r}) committed. */
  static ZkCluster start(Path tmp, int n, int r) throws Exception {
    ZkCluster c = new ZkCluster(new TestingServer(true), tmp, n);
    try {
      for (Endpoint e : c.endpoints) {
        c.startNode(e);
      }
      c.store
          .compareAndSet(LayoutStore.NO_VERSION, LayoutChanges.initial(NAME, c.endpoints, r))
          .join();
      return c;
    } catch (Exception e) {
      c.close();
      throw e;
    }
  }

  private void startNode(Endpoint e) {
    NodeConfig cfg =
        NodeConfig.durable(e, tmp.resolve(e.host())).withNoEarlierLeases().inCluster(config);
    nodes.put(e, Node.start(cfg, transport));
  }

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

  Versioned<Layout> agreed() {
    return store.get().join();
  }

  ZkLayoutStore store() {
    return store;
  }

  /** Stops the ZooKeeper server (its data stays); {@link #restartZooKeeper} brings it back. */
  void stopZooKeeper() throws java.io.IOException {
    zk.stop();
  }

  void restartZooKeeper() throws Exception {
    zk.restart();
  }

  /** Waits until the agreed layout satisfies {@code condition}; returns it. */
  Layout awaitLayout(String what, java.util.function.Predicate<Layout> condition) {
    return Awaitility.await(what)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> agreed().value(), condition);
  }

  /** A client connected through {@code seed}; closed with the cluster. */
  ClusterStreamLog client(Endpoint seed) {
    ClusterStreamLog log =
        ClusterStreamLog.connect(
            transport,
            seed,
            StreamLogOptions.defaults()
                .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2))));
    clients.add(log);
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
    for (ClusterStreamLog c : clients) {
      c.close();
    }
    for (Node n : nodes.values()) {
      n.close();
    }
    nodes.clear();
    store.close();
    transport.close();
    zk.close();
  }
}
