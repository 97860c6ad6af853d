package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vcorfu.layout.TestEnsembles;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cluster.ClusterConfig;
import java.nio.file.Path;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cluster init --output json}: one object naming the new cluster's epoch, sequencer, nodes,
 * replication and stream chains, printed once its sequencer serves; a second init with the same
 * nodes changes nothing and exits 0, one naming a node the cluster never had is refused.
 */
class ClusterInitOutputTest {
  @TempDir Path tmp;

  /** {@code cluster init} of cluster c1 with {@code nodes} and {@code more} arguments. */
  private static CliRun init(TestingServer zk, String nodes, String... more) {
    return CliRun.clusterInit(zk.getConnectString(), nodes, more);
  }

  /** {@code cluster init --output json} of cluster c1 with {@code node} alone. */
  private static CliRun initJson(TestingServer zk, Node node) {
    return init(zk, node.endpoint().toString(), "--output", "json");
  }

  /**
   * Against a ZooKeeper that is not there, {@code cluster init} (a real process, logging as
   * installed) prints its one line and nothing else: not the ZooKeeper client's retries.
   */
  @Test
  void initAgainstNoZooKeeperPrintsOneLine() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    java.util.List<String> cmd =
        io.vcorfu.server.ChildJvm.command("256m", "io.vcorfu.server.cli.VcorfuCli");
    cmd.addAll(
        java.util.List.of(
            "cluster",
            "init",
            "--zookeeper",
            "127.0.0.1:" + port,
            "--cluster",
            "gone",
            "--nodes",
            "127.0.0.1:9"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      String printed =
          new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(printed).isEqualTo(1);
      assertThat(printed.lines())
          .singleElement()
          .asString()
          .startsWith("vcorfu: ZooKeeper at 127.0.0.1:" + port + " could not be reached");
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void initPrintsTheNewClusterAsJsonOnceItsSequencerServes() throws Exception {
    Endpoint at = new Endpoint("127.0.0.1", ServerProcess.freePort());
    try (TestingServer zk = TestEnsembles.server();
        NettyTransport transport = new NettyTransport();
        Node node =
            Node.start(
                NodeConfig.durable(at, tmp.resolve("n"))
                    .inCluster(ClusterConfig.of(zk.getConnectString(), "c1")),
                transport)) {
      CliRun init = initJson(zk, node);
      assertThat(init.code()).as(init.err()).isZero();
      assertThat(init.out().lines()).hasSize(1);
      JsonNode o = new ObjectMapper().readTree(init.out());
      assertThat(o.get("cluster").asText()).isEqualTo("c1");
      assertThat(o.get("epoch").asLong()).isPositive();
      assertThat(o.get("sequencer").asText()).isEqualTo(node.endpoint().toString());
      assertThat(o.get("nodes")).hasSize(1);
      assertThat(o.get("replication").asInt()).isEqualTo(1);
      assertThat(o.get("streamChains").asInt()).isEqualTo(1);
      assertThat(o.get("sequencerServing").asBoolean()).isTrue();

      assertThat(o.get("created").asBoolean()).isTrue();

      // Again with the cluster's nodes (a deployment's init run a second time): nothing changes,
      // and it answers as the first did.
      CliRun again = initJson(zk, node);
      assertThat(again.code()).as(again.err()).isZero();
      JsonNode same = new ObjectMapper().readTree(again.out());
      assertThat(same.get("created").asBoolean()).isFalse();
      // The cluster may have moved on since (its sequencer's first seal takes the next epoch).
      assertThat(same.get("epoch").asLong()).isGreaterThanOrEqualTo(o.get("epoch").asLong());
      assertThat(same.get("sequencer").asText()).isEqualTo(node.endpoint().toString());
      assertThat(same.get("sequencerServing").asBoolean()).isTrue();

      // With a node the cluster never had: refused, nothing written.
      CliRun other = init(zk, node.endpoint() + ",127.0.0.1:9");
      assertThat(other.code()).isEqualTo(1);
      assertThat(other.err())
          .startsWith("vcorfu: cluster c1 exists already with other nodes")
          .contains("never 127.0.0.1:9")
          .contains("nothing was changed");
      CliRun text = init(zk, node.endpoint().toString());
      assertThat(text.code()).as(text.err()).isZero();
      assertThat(text.out().lines()).hasSize(2).endsWith("sequencer serving");
      assertThat(text.out().lines().findFirst().orElseThrow())
          .startsWith("cluster c1 exists already with these nodes: epoch ")
          .endsWith(
              ", sequencer "
                  + node.endpoint()
                  + ", 1 nodes, replication 1, 1 stream chains; nothing was changed");
    }
  }
}
