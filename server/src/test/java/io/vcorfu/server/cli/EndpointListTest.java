package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --endpoint} of {@code vcorfu log} and {@code vcorfu map} takes a comma-separated list of
 * nodes, asked in order until one answers; a malformed list is a usage error, said in one line (and
 * a hint to --help).
 */
class EndpointListTest {
  private static NettyTransport transport;
  private static Node node;
  private static String deadThenAlive;

  @BeforeAll
  static void start() throws IOException {
    transport = new NettyTransport();
    node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport);
    node.ready().join();
    deadThenAlive = "127.0.0.1:" + closedPort() + "," + node.endpoint();
  }

  @AfterAll
  static void stop() {
    node.close();
    transport.close();
  }

  private static CliRun cli(String... args) {
    return CliRun.of(args);
  }

  @Test
  void logCommandsConnectThroughTheFirstNodeOfTheListThatAnswers() {
    CliRun append = cli("log", "append", "--endpoint", deadThenAlive, "--stream", "listed", "v");
    assertThat(append.code()).as(append.err()).isZero();
    CliRun read = cli("log", "read", "--endpoint", deadThenAlive, "--stream", "listed");
    assertThat(read.out()).endsWith(" v");
  }

  @Test
  void mapCommandsConnectThroughTheFirstNodeOfTheListThatAnswers() {
    CliRun put = cli("map", "put", "--endpoint", deadThenAlive, "--map", "listed", "k", "v");
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(cli("map", "get", "--endpoint", deadThenAlive, "--map", "listed", "k").out())
        .isEqualTo("v");
  }

  @Test
  void aMalformedListIsRefusedInOneLine() {
    CliRun r = cli("log", "tail", "--endpoint", node.endpoint() + ",,127.0.0.1:1");
    assertThat(r.code()).as("a usage error").isEqualTo(VcorfuCli.USAGE);
    assertThat(r.err().lines().findFirst().orElseThrow())
        .startsWith("vcorfu: ")
        .contains("--endpoint")
        .contains("endpoint 2 of")
        .contains("is empty");
    CliRun m = cli("map", "get", "--endpoint", "127.0.0.1", "--map", "x", "k");
    assertThat(m.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(m.err()).startsWith("vcorfu: ").contains("endpoint 1 of '127.0.0.1'");
  }

  @Test
  void theHelpSaysAListIsTaken() {
    assertThat(usage("log", "append")).contains("--endpoint=H:P[,H:P...]").contains("commas");
    assertThat(usage("map", "put")).contains("--endpoint=H:P[,H:P...]").contains("commas");
  }

  private static String usage(String command, String subcommand) {
    return VcorfuCli.newCommandLine()
        .getSubcommands()
        .get(command)
        .getSubcommands()
        .get(subcommand)
        .getUsageMessage();
  }

  /** A port nothing listens on (it was free a moment ago). */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
