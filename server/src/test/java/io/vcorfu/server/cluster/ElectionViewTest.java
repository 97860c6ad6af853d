package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.TestEnsembles;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@link ElectionView} names the leader {@link LeaderLatch} itself names (the participant with the
 * lowest sequence number), follows the election as leaders leave, and names nobody while it is cut
 * off from ZooKeeper, so that the manager falls back to reading the latch.
 */
class ElectionViewTest {
  private static final String PATH = "/vcorfu/election-view/manager";

  @Test
  void namesTheLatchsLeaderAsLeadersLeave() throws Exception {
    try (TestingServer server = TestEnsembles.server();
        CuratorFramework zk = client(server)) {
      List<LeaderLatch> latches = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        LeaderLatch l = new LeaderLatch(zk, PATH, "127.0.0.1:900" + i + "#run" + i);
        l.start();
        latches.add(l);
      }
      Awaitility.await("three participants")
          .atMost(Duration.ofSeconds(20))
          .until(() -> latches.get(0).getParticipants().size() == 3);
      try (ElectionView view = new ElectionView(zk, PATH)) {
        while (latches.size() > 1) {
          String truth = latches.get(0).getLeader().getId();
          awaitLeader(view, truth);
          LeaderLatch leading =
              latches.stream().filter(l -> l.getId().equals(truth)).findFirst().orElseThrow();
          leading.close();
          latches.remove(leading);
          String next = latches.get(0).getLeader().getId();
          assertThat(next).isNotEqualTo(truth);
          awaitLeader(view, next);
        }
        latches.get(0).close();
        Awaitility.await("nobody in the election")
            .atMost(Duration.ofSeconds(10))
            .until(view::leader, Optional::isEmpty);
      }
    }
  }

  @Test
  void namesNobodyWhileCutOffFromZooKeeper() throws Exception {
    try (TestingServer server = TestEnsembles.server();
        CuratorFramework zk = client(server)) {
      try (LeaderLatch latch = new LeaderLatch(zk, PATH, "127.0.0.1:9000#a")) {
        latch.start();
        latch.await();
        try (ElectionView view = new ElectionView(zk, PATH)) {
          awaitLeader(view, "127.0.0.1:9000#a");
          server.stop();
          Awaitility.await("no leader named while ZooKeeper is away")
              .atMost(Duration.ofSeconds(20))
              .until(view::leader, Optional::isEmpty);
          server.restart();
          awaitLeader(view, "127.0.0.1:9000#a");
        }
      }
    }
  }

  @Test
  void readsTheSequenceNumberZooKeeperEndsASequentialZnodeWith() {
    assertThat(ElectionView.sequence("/a/_c_1f-latch-0000000042")).isEqualTo(42);
    assertThat(ElectionView.sequence("/a/latch-0000000000")).isZero();
    assertThat(ElectionView.sequence("/a/not-sequential")).isEqualTo(-1);
    assertThat(ElectionView.sequence("short")).isEqualTo(-1);
  }

  private static void awaitLeader(ElectionView view, String id) {
    Awaitility.await("the view names " + id)
        .atMost(Duration.ofSeconds(20))
        .until(view::leader, l -> l.equals(Optional.of(id)));
  }

  private static CuratorFramework client(TestingServer server) {
    CuratorFramework zk =
        CuratorFrameworkFactory.builder()
            .connectString(server.getConnectString())
            .sessionTimeoutMs(10_000)
            .connectionTimeoutMs(5_000)
            .retryPolicy(new RetryOneTime(100))
            .build();
    zk.start();
    return zk;
  }
}
