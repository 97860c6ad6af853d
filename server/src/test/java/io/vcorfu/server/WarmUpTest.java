package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.cluster.ClusterConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node's warm-up runs its load through a throwaway cluster of its own (real sockets on
 * 127.0.0.1), stops at its limit, and leaves nothing behind: nothing in its scratch directory,
 * nothing in the node's data directory, no entry in the log of the node started after it.
 */
class WarmUpTest {
  private static final Duration LIMIT = Duration.ofSeconds(3);

  @TempDir Path tmp;

  @ParameterizedTest(name = "replicated={0}")
  @ValueSource(booleans = {false, true})
  void aWarmUpAppendsThroughAThrowawayClusterAndLeavesNothingBehind(boolean replicated)
      throws IOException {
    Path scratch = Files.createDirectory(tmp.resolve("scratch"));
    Path data = tmp.resolve("data");
    Endpoint listen = new Endpoint("127.0.0.1", Scratch.freeLocalPort());

    WarmUp.Report report = WarmUp.run(NodeConfig.durable(listen, data), replicated, LIMIT, scratch);

    assertThat(report.appends()).isPositive();
    // Only a single node's warm-up asks for tokens.
    assertThat(report.tokens() > 0).isEqualTo(!replicated);
    // Its limit bounds the load; starting and closing the throwaway nodes comes on top.
    assertThat(report.took()).isLessThan(LIMIT.plusSeconds(60));
    assertThat(scratch).isEmptyDirectory();
    assertThat(data).doesNotExist();

    NettyTransport transport = new NettyTransport();
    Node node = Node.start(NodeConfig.durable(listen, data), transport);
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(transport, listen, StreamLogOptions.defaults())) {
      node.ready().join();
      StreamId warmed = StreamId.of("warm-up-0");
      Tails tails = log.tails(List.of(warmed)).join();
      assertThat(tails.globalTail()).isEqualTo(-1);
      assertThat(tails.streamTails().get(warmed)).isEqualTo(-1);
    } finally {
      node.close();
      transport.close();
    }
  }

  @Test
  void aClusterNodeWarmsUpThroughAClusterOfItsOwnAndLeavesItsZooKeeperAlone() throws Exception {
    Path scratch = Files.createDirectory(tmp.resolve("scratch"));
    Path data = tmp.resolve("data");
    Endpoint listen = new Endpoint("127.0.0.1", Scratch.freeLocalPort());
    try (TestingServer zookeeper = new TestingServer(true);
        CuratorFramework client =
            CuratorFrameworkFactory.newClient(
                zookeeper.getConnectString(), new RetryOneTime(100))) {
      client.start();
      List<String> before = client.getChildren().forPath("/");
      NodeConfig config =
          NodeConfig.durable(listen, data)
              .inCluster(ClusterConfig.of(zookeeper.getConnectString(), "production"));

      WarmUp.Report report = WarmUp.run(config, true, LIMIT, scratch);

      assertThat(report.appends()).isPositive();
      assertThat(report.tokens()).isZero();
      assertThat(scratch).isEmptyDirectory();
      assertThat(data).doesNotExist();
      // The throwaway cluster agreed its layout in a ZooKeeper of its own, not in the node's.
      assertThat(client.getChildren().forPath("/")).isEqualTo(before);
    }
    // Its ZooKeeper and nodes are closed: nothing of it still listens.
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().equals("vcorfu-scratch-zookeeper"));
  }

  @Test
  void aLimitThatIsNotPositiveIsRefused() {
    NodeConfig config = NodeConfig.inMemory(new Endpoint("127.0.0.1", 1));
    assertThatThrownBy(() -> WarmUp.run(config, false, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive limit");
  }
}
