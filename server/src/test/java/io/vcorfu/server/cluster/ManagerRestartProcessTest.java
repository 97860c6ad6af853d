package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.server.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manager's process killed with {@code kill -9} and restarted at once on its data: its old run
 * holds the manager election until its ZooKeeper session expires (a minute here), but the restarted
 * run answers probes as another run of the node, so the other nodes act in its place: it is removed
 * and rejoins, rebuilt and promoted, long before that minute is over.
 */
class ManagerRestartProcessTest {
  @TempDir Path tmp;

  @Test
  void aRestartedManagerDoesNotHoldUpHealingUntilItsOldSessionExpires() throws Exception {
    try (ProcessCluster cluster =
            ProcessCluster.start(tmp, "restart", 3, List.of("--zookeeper-session-ms", "60000"));
        RpcClient rpc =
            cluster
                .transport()
                .newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(1)))) {
      NodeCalls calls = new NodeCalls(rpc);
      Endpoint manager =
          Awaitility.await("the manager")
              .atMost(Duration.ofSeconds(30))
              .ignoreExceptions()
              .until(
                  () ->
                      cluster.nodes().stream()
                          .filter(n -> calls.ping(n).join().getManaging())
                          .findFirst(),
                  java.util.Optional::isPresent)
              .orElseThrow();

      cluster.processOf(manager).kill9();
      cluster.awaitLayout(l -> l.removed().contains(manager));
      ServerProcess restarted = cluster.restart(manager, false);
      long restartedAt = System.nanoTime();

      Layout healed =
          Awaitility.await(manager + " rebuilt and promoted")
              .atMost(Duration.ofSeconds(20))
              .pollInterval(Duration.ofMillis(200))
              .ignoreExceptions()
              .until(
                  cluster::newestLayout,
                  l ->
                      l.allServers().contains(manager)
                          && !l.isRebuilding(manager)
                          && LayoutChanges.underReplicated(l).isEmpty());
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - restartedAt);
      System.out.println(
          "ManagerRestartProcessTest: back at full strength " + seconds + " s after the restart");
      assertThat(restarted.isAlive()).isTrue();
      assertThat(healed.removed()).isEmpty();
    }
  }
}
