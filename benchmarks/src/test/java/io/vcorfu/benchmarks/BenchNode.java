package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.cli.VcorfuCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One in-memory node on a free 127.0.0.1 port for benchmark tests, and a way to run a bench command
 * against it. Not thread-safe: {@link #run} swaps {@code System.out} while the command runs.
 */
final class BenchNode implements AutoCloseable {
  private final NettyTransport transport;
  private final Node node;
  private final String endpoint;

  private BenchNode(NettyTransport transport, Node node, String endpoint) {
    this.transport = transport;
    this.node = node;
    this.endpoint = endpoint;
  }

  /** Starts a node and waits until it serves. */
  static BenchNode start() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String endpoint = "127.0.0.1:" + port;
    NettyTransport transport = new NettyTransport();
    Node node = Node.start(NodeConfig.inMemory(Endpoint.parse(endpoint)), transport);
    node.ready().join();
    return new BenchNode(transport, node, endpoint);
  }

  /** The node's {@code host:port}. */
  String endpoint() {
    return endpoint;
  }

  /**
   * Runs {@code command} with the space-separated {@code args} plus {@code --endpoint} of this node,
   * echoes what it printed, asserts it exited 0 and returns its output lines.
   */
  List<String> run(Object command, String args) {
    List<String> argv = new ArrayList<>(List.of(args.split(" ")));
    argv.addAll(List.of("--endpoint", endpoint));
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream old = System.out;
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = VcorfuCli.commandLine(command).execute(argv.toArray(String[]::new));
    } finally {
      System.setOut(old);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertThat(code).as(out).isZero();
    return List.of(out.split("\n"));
  }

  @Override
  public void close() {
    node.close();
    transport.close();
  }
}
