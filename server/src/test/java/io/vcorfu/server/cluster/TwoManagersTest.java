package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several managers acting at once while a node dies: the cluster's elected manager, plus two
 * managers started by hand that each believe they lead (each leads an election of its own) and act
 * on the cluster's layout, one of them with its seals arriving 600 ms late, as a manager that
 * paused after reading the layout would send them. Sealing and the compare-and-set must keep the
 * agreed layout one chain of valid changes: every version the znode took (as a watch saw them)
 * follows from the one before by removing nodes at a higher epoch; only the node that died is
 * removed; and every acknowledged write reads back from every surviving replica.
 */
class TwoManagersTest {
  private static final Duration LATE_SEALS = Duration.ofMillis(600);

  @TempDir Path tmp;

  @Test
  void managersActingAtOnceWhileTheSequencerDiesKeepOneChainOfLayouts() throws Exception {
    run(true);
  }

  @Test
  void managersActingAtOnceWhileAReplicaDiesKeepOneChainOfLayouts() throws Exception {
    run(false);
  }

  private void run(boolean sequencer) throws Exception {
    long seed = Long.getLong("vcorfu.test.seed", System.nanoTime());
    System.out.printf("TwoManagersTest sequencer=%s seed %d%n", sequencer, seed);
    Random rnd = new Random(seed);
    try (ZkCluster c = ZkCluster.start(tmp, 4, 2)) {
      // Every node's incarnation recorded too (a commit at the same epoch), before the watch.
      Layout initial = c.awaitStarted();
      c.awaitAdopted(initial.epoch());
      List<Versioned<Layout>> history = new CopyOnWriteArrayList<>();
      List<StreamId> streams = RoleFaultScenario.streamsOnEveryChain(initial);
      List<Endpoint> others = new ArrayList<>(initial.allServers());
      others.remove(initial.sequencer());
      Endpoint victim = sequencer ? initial.sequencer() : others.get(rnd.nextInt(others.size()));
      FaultWorkload w;
      ZkLayoutStore.Watch watch = c.store().watch(history::add);
      try (watch;
          Manager eager = Manager.start(c, "eager", Duration.ZERO);
          Manager late = Manager.start(c, "late", LATE_SEALS)) {
        Awaitility.await("three managers at once")
            .atMost(Duration.ofSeconds(30))
            .until(() -> eager.leading() && late.leading() && c.manager().isPresent());
        System.out.printf("  victim %s, elected manager %s%n", victim, c.manager().orElseThrow());
        w = FaultWorkload.start(c, streams, 2, seed);
        try (w) {
          RoleFaultScenario.awaitProgress(w, 0, 0, "before the node dies");
          c.kill(victim);
          c.awaitLayout("a layout without " + victim, x -> x.removed().contains(victim));
          RoleFaultScenario.awaitProgress(
              w, w.appends.size(), w.committed.size(), "after the layout changed");
        }
        assertThat(eager.leading() && late.leading()).as("the hand-started managers lead").isTrue();
        Versioned<Layout> agreed = c.agreed();
        Awaitility.await("the watch saw version " + agreed.version())
            .atMost(Duration.ofSeconds(30))
            .until(() -> history.get(history.size() - 1).version() >= agreed.version());
      }
      System.out.printf("  %s; %d layout versions seen%n", w.summary(), history.size());
      history.forEach(
          v -> System.out.printf("  version %d: %s%n", v.version(), v.value().toJson()));
      assertThat(LayoutHistory.problems(history)).as("layout history, seed %d", seed).isEmpty();
      Layout last = c.agreed().value();
      assertThat(last.removed()).as("removed nodes, seed %d", seed).containsExactly(victim);
      try (ReplicaCheck check = new ReplicaCheck(c.transport(), last)) {
        check.assertEveryReplicaHolds(w.appends, w.committed, StreamId.of(FaultWorkload.MAP));
      }
      RoleFaultScenario.assertEveryAppendReadsBack(c, last, streams, w.appends);
      RoleFaultScenario.assertMapHoldsEveryCommittedUpdate(c, last, w);
    }
  }

  /**
   * A {@link ClusterManager} started by hand against the cluster's ZooKeeper and layout; it leads
   * an election of its own ({@code /vcorfu/<name>/manager}), so it acts whoever the cluster
   * elected. Its seal requests leave {@code sealDelay} late.
   */
  private static final class Manager implements AutoCloseable {
    private final ZkLayoutStore store;
    private final RpcClient rpc;
    private final ClusterManager manager;

    private Manager(ZkLayoutStore store, RpcClient rpc, ClusterManager manager) {
      this.store = store;
      this.rpc = rpc;
      this.manager = manager;
    }

    static Manager start(ZkCluster c, String name, Duration sealDelay) {
      ZkLayoutStore store =
          ZkLayoutStore.connect(c.connectString(), ZkCluster.NAME, Duration.ofSeconds(10));
      RpcClient rpc = c.transport().newClient(ClientOptions.defaults());
      RpcClient delayed =
          new RpcClient() {
            @Override
            public CompletableFuture<Response> call(Endpoint target, Request request) {
              if (request.getPayloadCase() != Request.PayloadCase.SEAL || sealDelay.isZero()) {
                return rpc.call(target, request);
              }
              return CompletableFuture.runAsync(
                      () -> {},
                      CompletableFuture.delayedExecutor(
                          sealDelay.toMillis(), TimeUnit.MILLISECONDS))
                  .thenCompose(v -> rpc.call(target, request));
            }

            @Override
            public void close() {
              rpc.close();
            }
          };
      ClusterConfig config =
          new ClusterConfig(
              c.connectString(),
              name,
              Duration.ofMillis(500),
              Duration.ofMillis(100),
              Duration.ofMillis(1000),
              Duration.ofSeconds(10));
      ClusterManager m =
          ClusterManager.start(new Endpoint(name, 1), config, store, new NodeCalls(delayed));
      return new Manager(store, delayed, m);
    }

    boolean leading() {
      return manager.leading();
    }

    @Override
    public void close() {
      manager.close();
      rpc.close();
      store.close();
    }
  }
}
