package io.vcorfu.server;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An in-process cluster: one node per endpoint of a layout, all on one transport (by default the
 * in-JVM transport, which serializes every message and takes fault rules).
 */
public final class InProcessCluster implements AutoCloseable {
  public static final Endpoint SEQUENCER = new Endpoint("sequencer", 9000);
  public static final Endpoint LOG_A = new Endpoint("log-a", 9001);
  public static final Endpoint LOG_B = new Endpoint("log-b", 9002);
  public static final Endpoint STREAM_A = new Endpoint("stream-a", 9003);
  public static final Endpoint STREAM_B = new Endpoint("stream-b", 9004);

  private final Transport transport;
  private final List<Node> nodes = new ArrayList<>();
  private final List<ClusterStreamLog> clients = new ArrayList<>();
  private final Path layoutFile;

  private InProcessCluster(Transport transport, Path layoutFile) {
    this.transport = transport;
    this.layoutFile = layoutFile;
  }

  /**
   * The five-node layout of the paper's Figure 3: one sequencer, two log chains, two stream chains.
   */
  public static String fiveNodeLayout(
      Endpoint seq, Endpoint logA, Endpoint logB, Endpoint streamA, Endpoint streamB) {
    return """
    {"clusterId": "test", "epoch": 1, "sequencer": "%s",
     "segments": [{"start": 0, "end": -1,
                   "log": [["%s"], ["%s"]],
                   "stream": [["%s"], ["%s"]]}]}
    """
        .formatted(seq, logA, logB, streamA, streamB);
  }

  /** Five in-memory nodes on an in-JVM transport. */
  public static InProcessCluster fiveNodes(Path tmp) {
    return fiveNodes(tmp, null);
  }

  /**
   * Five nodes on an in-JVM transport, durable under {@code dataRoot} when it is not null (each in
   * a directory named after its endpoint).
   */
  public static InProcessCluster fiveNodes(Path tmp, Path dataRoot) {
    return start(
        new InJvmTransport(),
        tmp,
        fiveNodeLayout(SEQUENCER, LOG_A, LOG_B, STREAM_A, STREAM_B),
        dataRoot);
  }

  /**
   * Nodes for every endpoint of {@code layoutJson}; durable under {@code dataRoot} when it is not
   * null.
   */
  public static InProcessCluster start(
      Transport transport, Path tmp, String layoutJson, Path dataRoot) {
    try {
      Path file =
          Files.writeString(tmp.resolve("layout-" + System.nanoTime() + ".json"), layoutJson);
      InProcessCluster cluster = new InProcessCluster(transport, file);
      for (Endpoint e : Node.readLayout(file).allServers()) {
        cluster.startNode(
            e, dataRoot == null ? null : dataRoot.resolve(e.host() + "-" + e.port()), true);
      }
      for (Node n : cluster.nodes) {
        n.ready().join();
      }
      return cluster;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** (Re)starts the node at {@code endpoint}: an in-memory sequencer waits out earlier leases. */
  public Node startNode(Endpoint endpoint, Path dataDir) {
    return startNode(endpoint, dataDir, false);
  }

  private Node startNode(Endpoint endpoint, Path dataDir, boolean newCluster) {
    // The global log keeps its entries for the tests' whole length (they read it back).
    NodeConfig config =
        new NodeConfig(endpoint, dataDir, layoutFile, null)
            .withLogRetention(java.time.Duration.ofMinutes(10));
    Node node = Node.start(newCluster ? config.withNoEarlierLeases() : config, transport);
    nodes.add(node);
    return node;
  }

  public void stopNode(Endpoint endpoint) {
    for (Node n : List.copyOf(nodes)) {
      if (n.endpoint().equals(endpoint)) {
        n.close();
        nodes.remove(n);
      }
    }
  }

  public Transport transport() {
    return transport;
  }

  public ClusterStreamLog client() {
    return client(StreamLogOptions.defaults());
  }

  public ClusterStreamLog client(StreamLogOptions options) {
    ClusterStreamLog c =
        ClusterStreamLog.connect(
            transport,
            SEQUENCER.equals(nodes.get(0).endpoint()) ? SEQUENCER : nodes.get(0).endpoint(),
            options);
    clients.add(c);
    return c;
  }

  @Override
  public void close() {
    clients.forEach(ClusterStreamLog::close);
    nodes.forEach(Node::close);
    transport.close();
  }
}
