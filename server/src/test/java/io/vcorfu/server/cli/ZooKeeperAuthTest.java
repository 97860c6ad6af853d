package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.ZkAuth;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cluster.ClusterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster kept in a ZooKeeper that requires authentication ({@code vcorfu zookeeper
 * --require-auth}), under the cluster's identity ({@code --zookeeper-auth FILE}): the node and the
 * commands given the identity work; a command or client without it is refused with a line saying
 * what to give, and changes nothing.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZooKeeperAuthTest {
  @TempDir Path tmp;

  @Test
  void aClusterUnderItsZooKeeperIdentityServesOnlyThoseWhoHaveIt() throws Exception {
    Path secret = Files.writeString(tmp.resolve("zk-auth"), "vcorfu:correct-horse\n");
    int zkPort = ServerProcess.freePort();
    try (ServerProcess zk =
        ServerProcess.startCli(
                zkPort,
                List.of(
                    "zookeeper",
                    "--port",
                    Integer.toString(zkPort),
                    "--data-dir",
                    tmp.resolve("zk").toString(),
                    "--require-auth"))
            .awaitReady()) {
      assertThat(zk.output()).anyMatch(l -> l.contains("clients must authenticate: digest"));
      String zks = "127.0.0.1:" + zkPort;
      io.vcorfu.protocol.Endpoint at =
          new io.vcorfu.protocol.Endpoint("127.0.0.1", ServerProcess.freePort());
      try (NettyTransport transport = new NettyTransport();
          Node node =
              Node.start(
                  NodeConfig.durable(at, tmp.resolve("n"))
                      .inCluster(
                          ClusterConfig.of(zks, "c1").withZookeeperAuth(ZkAuth.fromFile(secret))),
                  transport)) {
        List<String> init =
            new ArrayList<>(
                List.of(
                    "cluster",
                    "init",
                    "--zookeeper",
                    zks,
                    "--cluster",
                    "c1",
                    "--nodes",
                    at.toString(),
                    "--replication",
                    "1"));
        CliRun refused = CliRun.of(init);
        assertThat(refused.code()).as(refused.err()).isNotZero();
        assertThat(refused.err()).contains("--zookeeper-auth").doesNotContain("correct-horse");

        init.addAll(List.of("--zookeeper-auth", secret.toString()));
        CliRun created = CliRun.of(init);
        assertThat(created.code()).as(created.err()).isZero();

        List<String> retention =
            List.of("cluster", "retention", "--zookeeper", zks, "--cluster", "c1");
        CliRun stranger = CliRun.of(retention);
        assertThat(stranger.code()).isNotZero();
        assertThat(stranger.err()).contains("--zookeeper-auth");
        List<String> withAuth = new ArrayList<>(retention);
        withAuth.addAll(List.of("--zookeeper-auth", secret.toString()));
        CliRun owner = CliRun.of(withAuth);
        assertThat(owner.code()).as(owner.err()).isZero();
        assertThat(owner.out()).contains("cluster c1");

        // A client of the ensemble without the identity reads nothing.
        try (ZkLayoutStore store = ZkLayoutStore.connect(zks, "c1", Duration.ofSeconds(10))) {
          assertThat(store.get())
              .failsWithin(Duration.ofSeconds(60))
              .withThrowableOfType(java.util.concurrent.ExecutionException.class)
              .withMessageContaining("--zookeeper-auth");
        }
        // The node, which has it, serves the cluster it was initialised into.
        org.awaitility.Awaitility.await("the node adopts the layout")
            .atMost(Duration.ofSeconds(60))
            .until(() -> node.layout().epoch() >= 1);
      }
    }
  }

  @Test
  void aBadIdentityFileStopsTheCommandWithOneLine() throws Exception {
    Path bad = Files.writeString(tmp.resolve("zk-auth"), "no password here\n");
    CliRun run =
        CliRun.of(
            "cluster",
            "retention",
            "--zookeeper",
            "127.0.0.1:1",
            "--cluster",
            "c1",
            "--zookeeper-auth",
            bad.toString());
    assertThat(run.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(run.err().strip())
        .startsWith("vcorfu cluster retention: ")
        .contains("user:password");
    assertThat(run.err().lines()).hasSize(1);
    CliRun server =
        CliRun.of(
            "server",
            "--memory",
            "--port",
            Integer.toString(ServerProcess.freePort()),
            "--zookeeper-auth",
            bad.toString());
    assertThat(server.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(server.err()).contains("--zookeeper-auth goes with --zookeeper");
  }
}
