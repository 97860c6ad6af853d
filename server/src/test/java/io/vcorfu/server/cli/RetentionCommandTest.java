package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterRetention;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.SnapshotFloor;
import io.vcorfu.layout.TestEnsembles;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cluster.ClusterConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history a cluster keeps: set at {@code cluster init} or with {@code cluster retention}, kept
 * in ZooKeeper, and announced by the sequencer to every runtime registering its snapshots; a single
 * node announces its own {@code --retain-versions/--retain-time}. Bad values are refused with one
 * line and exit 2, and nothing is written.
 */
class RetentionCommandTest {
  @TempDir Path tmp;

  /** {@code vcorfu cluster retention} of cluster c1 with {@code more} arguments. */
  private static CliRun retention(TestingServer zk, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "cluster", "retention", "--zookeeper", zk.getConnectString(), "--cluster", "c1"));
    args.addAll(List.of(more));
    return CliRun.of(args);
  }

  /**
   * {@code vcorfu cluster init} of cluster c1 with {@code node} alone, keeping {@code versions}.
   */
  private static CliRun init(TestingServer zk, Node node, String versions) {
    return CliRun.clusterInit(
        zk.getConnectString(), node.endpoint().toString(), "--retain-versions", versions);
  }

  /** What the sequencer announces now. */
  private static ClusterRetention announced(ClusterStreamLog log) {
    SnapshotFloor f = log.registerSnapshots(-1, 1).join();
    return f.retention();
  }

  private static void awaitAnnounced(ClusterStreamLog log, ClusterRetention expected) {
    Awaitility.await("the sequencer announces " + expected)
        .atMost(Duration.ofSeconds(20))
        .until(() -> announced(log), expected::equals);
  }

  @Test
  void aClustersRetentionIsSetAtInitChangedAndClearedAndReachesTheRuntimes() throws Exception {
    Endpoint at = new Endpoint("127.0.0.1", ServerProcess.freePort());
    try (TestingServer zk = TestEnsembles.server();
        NettyTransport transport = new NettyTransport();
        Node node =
            Node.start(
                NodeConfig.durable(at, tmp.resolve("n"))
                    .inCluster(ClusterConfig.of(zk.getConnectString(), "c1")),
                transport)) {
      String zks = zk.getConnectString();
      CliRun missing = retention(zk);
      assertThat(missing.code()).as(missing.err()).isEqualTo(3);
      assertThat(missing.err().strip())
          .isEqualTo(
              "vcorfu cluster retention: there is no cluster c1 in ZooKeeper at "
                  + zks
                  + "; create it with `vcorfu cluster init`");

      CliRun init = init(zk, node, "500");
      assertThat(init.code()).as(init.err()).isZero();
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(node.endpoint(), io.vcorfu.client.StreamLogOptions.defaults())) {
        awaitAnnounced(log, new ClusterRetention(500, null));

        CliRun set = retention(zk, "--retain-time", "7d");
        assertThat(set.code()).as(set.err()).isZero();
        assertThat(set.out().strip())
            .isEqualTo("cluster c1: retain-versions 500, retain-time 604800000 ms");
        awaitAnnounced(log, new ClusterRetention(500, Duration.ofDays(7)));

        // Initialised again with its node but another retention: refused, naming what it keeps.
        CliRun again = init(zk, node, "1");
        assertThat(again.code()).isEqualTo(1);
        assertThat(again.err())
            .startsWith("vcorfu: cluster c1 exists already with these nodes but keeps ")
            .contains("nothing was changed");
        CliRun show = retention(zk);
        assertThat(show.out().strip())
            .as("a refused init changes nothing")
            .isEqualTo("cluster c1: retain-versions 500, retain-time 604800000 ms");

        CliRun bad = retention(zk, "--retain-versions", "-3");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("'-3' is negative: give 0 or more updates");
        assertThat(retention(zk).out()).contains("retain-versions 500");

        CliRun clear = retention(zk, "--clear");
        assertThat(clear.code()).as(clear.err()).isZero();
        assertThat(clear.out().strip())
            .isEqualTo("cluster c1: no retention set (runtimes keep their own)");
        awaitAnnounced(log, ClusterRetention.NONE);
      }
    }
  }

  @Test
  void aSingleNodeAnnouncesTheRetentionItWasStartedWith() {
    Endpoint at = new Endpoint("127.0.0.1", ServerProcess.freePort());
    try (NettyTransport transport = new NettyTransport();
        Node node =
            Node.start(
                NodeConfig.inMemory(at)
                    .withRetention(new ClusterRetention(-1, Duration.ofMinutes(30))),
                transport);
        ClusterStreamLog log =
            ClusterStreamLog.connect(
                node.endpoint(), io.vcorfu.client.StreamLogOptions.defaults())) {
      assertThat(announced(log)).isEqualTo(new ClusterRetention(-1, Duration.ofMinutes(30)));
    }
  }

  @Test
  void badRetentionFlagsAreRefusedWithOneLine() {
    CliRun time = CliRun.of("server", "--memory", "--retain-time", "5x");
    assertThat(time.code()).isEqualTo(2);
    assertThat(time.err())
        .contains(
            "'5x' is not a duration: give a whole number with a unit, as 90s, 30m, 12h or 7d (or"
                + " 0)");

    CliRun inCluster =
        CliRun.of(
            "server",
            "--memory",
            "--zookeeper",
            "127.0.0.1:1",
            "--cluster",
            "c1",
            "--retain-versions",
            "3");
    assertThat(inCluster.code()).isEqualTo(2);
    assertThat(inCluster.err().strip())
        .isEqualTo(
            "vcorfu server: a cluster node announces its cluster's retention; set it with"
                + " `vcorfu cluster retention`, not --retain-versions/--retain-time");

    CliRun both =
        CliRun.of(
            "cluster",
            "retention",
            "--zookeeper",
            "127.0.0.1:1",
            "--cluster",
            "c1",
            "--clear",
            "--retain-versions",
            "3");
    assertThat(both.code()).isEqualTo(2);
    assertThat(both.err().strip())
        .isEqualTo("vcorfu cluster retention: give --clear or the values to set, not both");
  }
}
