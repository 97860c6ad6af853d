package io.vcorfu.server.cli;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A durable single node on 127.0.0.1 (an ephemeral port) for command-line tests. */
final class LoopbackNode implements AutoCloseable {
  private final NettyTransport transport;
  private final Node node;

  private LoopbackNode(NettyTransport transport, Node node) {
    this.transport = transport;
    this.node = node;
  }

  /** Starts a node keeping its data in {@code dataDir}, once it serves. */
  static LoopbackNode start(Path dataDir) {
    NettyTransport transport = new NettyTransport();
    Node node = Node.start(NodeConfig.durable(new Endpoint("127.0.0.1", 0), dataDir), transport);
    node.ready().join();
    return new LoopbackNode(transport, node);
  }

  /** The node. */
  Node node() {
    return node;
  }

  /** The node's transport, for clients in this JVM. */
  NettyTransport transport() {
    return transport;
  }

  /** Runs {@code vcorfu log ARGS[0] --endpoint THIS_NODE ARGS[1..]}. */
  CliRun log(String... args) {
    List<String> all =
        new ArrayList<>(List.of("log", args[0], "--endpoint", node.endpoint().toString()));
    all.addAll(List.of(args).subList(1, args.length));
    return CliRun.of(all);
  }

  /** Runs {@code vcorfu map ARGS[0] --endpoint THIS_NODE ARGS[1..]}. */
  CliRun map(String... args) {
    List<String> all =
        new ArrayList<>(List.of("map", args[0], "--endpoint", node.endpoint().toString()));
    all.addAll(List.of(args).subList(1, args.length));
    return CliRun.of(all);
  }

  @Override
  public void close() {
    node.close();
    transport.close();
  }
}
