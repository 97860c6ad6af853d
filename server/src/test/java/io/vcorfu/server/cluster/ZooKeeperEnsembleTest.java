package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.PingResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes following a layout agreed in a three-server ZooKeeper ensemble, under load. While the
 * ensemble loses one server after another, and then its quorum for longer than the nodes' session
 * timeout, every node keeps its layout lease (renewed by ZooKeeper, or by its peers while ZooKeeper
 * cannot answer) and serves: no append fails and no transaction ends with an unknown outcome. Once
 * the quorum is back (the nodes' sessions having expired meanwhile), the cluster still changes its
 * layout: a node that dies is removed, and no acknowledged write is lost.
 */
class ZooKeeperEnsembleTest {
  /**
   * The nodes' layout lease: longer than the other cluster tests' 500 ms, since this test asserts
   * that no node stops serving at any moment, and on a loaded two-core machine a renewal can wait
   * over half a second for a processor (a lapsed lease stops a node serving until it confirms its
   * layout again, which is its job, not what this test is about).
   */
  private static final Duration LAYOUT_LEASE = Duration.ofMillis(1500);

  /** How long the quorum stays lost: past the session timeout, and several layout leases. */
  private static final Duration QUORUM_LOST =
      ZkCluster.ENSEMBLE_SESSION.plus(Duration.ofSeconds(1));

  @TempDir Path tmp;

  @Test
  void theDataPathServesThroughLostZooKeeperServersAndALostQuorum() throws Exception {
    long seed = Long.getLong("vcorfu.test.seed", System.nanoTime());
    System.out.println("ZooKeeperEnsembleTest seed " + seed);
    TestingCluster ensemble = io.vcorfu.layout.TestEnsembles.cluster(3);
    ensemble.start();
    try (ZkCluster c = ZkCluster.startOnEnsemble(ensemble, tmp, 3, 3, LAYOUT_LEASE);
        RpcClient rpc =
            c.transport()
                .newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)))) {
      NodeCalls calls = new NodeCalls(rpc);
      Layout initial = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      c.awaitAdopted(initial.epoch());
      List<StreamId> streams = RoleFaultScenario.streamsOnEveryChain(initial);
      FaultWorkload w = FaultWorkload.start(c, streams, 2, seed);
      Endpoint victim = initial.allServers().stream().skip(1).findFirst().orElseThrow();
      try (w) {
        RoleFaultScenario.awaitProgress(w, 0, 0, "before ZooKeeper fails");
        List<InstanceSpec> servers = new ArrayList<>(ensemble.getInstances());
        for (InstanceSpec server : servers) {
          ensemble.killServer(server);
          servesWithoutErrors(c, calls, w, Duration.ofMillis(1500), "without " + server);
          ensemble.restartServer(server);
        }
        ensemble.killServer(servers.get(0));
        ensemble.killServer(servers.get(1));
        servesWithoutErrors(c, calls, w, QUORUM_LOST, "without a ZooKeeper quorum");
        ensemble.restartServer(servers.get(0));
        ensemble.restartServer(servers.get(1));
        servesWithoutErrors(c, calls, w, Duration.ofSeconds(1), "with the quorum back");

        c.kill(victim);
        c.awaitLayout("a layout without " + victim, x -> x.removed().contains(victim));
        RoleFaultScenario.awaitProgress(
            w, w.appends.size(), w.committed.size(), "after the layout changed");
      }
      System.out.println("  " + w.summary());
      Layout last = c.agreed().value();
      assertThat(last.removed()).containsExactly(victim);
      try (ReplicaCheck check = new ReplicaCheck(c.transport(), last)) {
        check.assertEveryReplicaHolds(w.appends, w.committed, StreamId.of(FaultWorkload.MAP));
      }
      RoleFaultScenario.assertEveryAppendReadsBack(c, last, streams, w.appends);
      RoleFaultScenario.assertMapHoldsEveryCommittedUpdate(c, last, w);
    }
  }

  /**
   * For {@code time}: every node says it serves, no append fails, no transaction ends unknown; and
   * appends are acknowledged meanwhile.
   */
  private static void servesWithoutErrors(
      ZkCluster c, NodeCalls calls, FaultWorkload w, Duration time, String when) {
    int errors = w.appendErrors.get();
    int unknown = w.unknown.size();
    int appends = w.appends.size();
    Awaitility.await("every node serving, no append failing, " + when)
        .during(time)
        .atMost(time.plusSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              for (Endpoint e : c.endpoints()) {
                PingResponse p = calls.ping(e).get(5, TimeUnit.SECONDS);
                if (!p.getServing()) {
                  throw new AssertionError(
                      e + " stopped serving " + when + ": " + p.getNotServingReason());
                }
              }
              assertThat(w.appendErrors.get())
                  .as("appends failed %s: %s", when, w.errors)
                  .isEqualTo(errors);
              assertThat(w.unknown.size())
                  .as("transactions unknown %s: %s", when, w.errors)
                  .isEqualTo(unknown);
              return true;
            });
    assertThat(w.appends.size()).as("appends acknowledged %s", when).isGreaterThan(appends);
  }
}
