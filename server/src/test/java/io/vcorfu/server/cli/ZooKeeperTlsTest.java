package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.layout.ZkTls;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cluster.ClusterConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster kept in a ZooKeeper that serves only TLS and requires client certificates ({@code
 * vcorfu zookeeper --tls-*}): the node and the commands given {@code --zookeeper-tls-*} create,
 * adopt and change the cluster; a plaintext ZooKeeper client reads nothing; bad options are usage
 * errors that touch nothing.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZooKeeperTlsTest {
  @TempDir Path tmp;

  private final TestCertificates.Authority ca = TestCertificates.authority("zk CA");

  private static List<String> zkTls(TlsOptions t) {
    return List.of(
        "--zookeeper-tls-ca", t.ca().toString(),
        "--zookeeper-tls-cert", t.cert().toString(),
        "--zookeeper-tls-key", t.key().toString());
  }

  @Test
  void aClusterInATlsZooKeeperIsServedToThoseWithCertificatesOnly() throws Exception {
    TlsOptions zkId = ca.identityIn(tmp, "zk");
    TlsOptions nodeId = ca.identityIn(tmp, "node");
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
                    "--tls-cert",
                    zkId.cert().toString(),
                    "--tls-key",
                    zkId.key().toString(),
                    "--tls-ca",
                    zkId.ca().toString()))
            .awaitReady()) {
      assertThat(zk.output()).anyMatch(l -> l.contains("TLS only, client certificates required"));
      String zks = "127.0.0.1:" + zkPort;
      Endpoint at = new Endpoint("127.0.0.1", ServerProcess.freePort());
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
                  "1",
                  "--timeout-ms",
                  "5000"));
      CliRun plain = CliRun.of(init);
      assertThat(plain.code()).as(plain.err()).isNotZero();

      ZkTls tls = new ZkTls(nodeId.ca(), nodeId.cert(), nodeId.key());
      try (NettyTransport transport = new NettyTransport();
          Node node =
              Node.start(
                  NodeConfig.durable(at, tmp.resolve("n"))
                      .inCluster(ClusterConfig.of(zks, "c1").withZookeeperTls(tls)),
                  transport)) {
        init.addAll(zkTls(nodeId));
        CliRun created = CliRun.of(init);
        assertThat(created.code()).as(created.err()).isZero();
        Awaitility.await("the node adopts the layout over TLS")
            .atMost(Duration.ofSeconds(60))
            .until(() -> node.layout().epoch() >= 1);

        List<String> retention =
            new ArrayList<>(List.of("cluster", "retention", "--zookeeper", zks, "--cluster", "c1"));
        retention.addAll(zkTls(nodeId));
        CliRun shown = CliRun.of(retention);
        assertThat(shown.code()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("cluster c1");

        // A client of the ensemble without TLS reads nothing.
        try (ZkLayoutStore store = ZkLayoutStore.connect(zks, "c1", Duration.ofSeconds(3))) {
          assertThat(store.get())
              .failsWithin(Duration.ofSeconds(60))
              .withThrowableOfType(ExecutionException.class);
        }
      }
    }
  }

  @Test
  void partialTlsOptionsAreUsageErrors() throws Exception {
    TlsOptions nodeId = ca.identityIn(tmp, "node");
    CliRun retention =
        CliRun.of(
            "cluster",
            "retention",
            "--zookeeper",
            "127.0.0.1:1",
            "--cluster",
            "c1",
            "--zookeeper-tls-ca",
            nodeId.ca().toString());
    assertThat(retention.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(retention.err().strip())
        .isEqualTo(
            "vcorfu cluster retention: TLS to ZooKeeper needs --zookeeper-tls-ca,"
                + " --zookeeper-tls-cert and --zookeeper-tls-key together");
    CliRun missing =
        CliRun.of(
            "cluster",
            "retention",
            "--zookeeper",
            "127.0.0.1:1",
            "--cluster",
            "c1",
            "--zookeeper-tls-ca",
            tmp.resolve("nope.pem").toString(),
            "--zookeeper-tls-cert",
            nodeId.cert().toString(),
            "--zookeeper-tls-key",
            nodeId.key().toString());
    assertThat(missing.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(missing.err()).contains("nope.pem does not exist");
    CliRun server =
        CliRun.of(
            "server",
            "--memory",
            "--port",
            Integer.toString(ServerProcess.freePort()),
            "--zookeeper-tls-ca",
            nodeId.ca().toString());
    assertThat(server.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(server.err()).contains("--zookeeper-tls-* go with --zookeeper");
    CliRun zk =
        CliRun.of(
            "zookeeper",
            "--port",
            Integer.toString(ServerProcess.freePort()),
            "--data-dir",
            tmp.resolve("zk").toString(),
            "--tls-cert",
            nodeId.cert().toString());
    assertThat(zk.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(zk.err().strip())
        .isEqualTo("vcorfu zookeeper: TLS needs --tls-cert, --tls-key and --tls-ca together");
    assertThat(tmp.resolve("zk")).doesNotExist();
  }
}
