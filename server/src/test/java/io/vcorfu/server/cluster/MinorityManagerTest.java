package io.vcorfu.server.cluster;

import static io.vcorfu.server.cluster.FailoverTest.appendUntil;
import static io.vcorfu.server.cluster.FailoverTest.assertEveryAckedReadable;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.server.cluster.FailoverTest.Acked;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A manager that fewer than half of the layout's nodes answer, on both sides of the line it must
 * draw: the last node of three standing (the other two dead, their ZooKeeper sessions ended) takes
 * them out of the layout and serves everything acknowledged, since with R = 3 it holds a copy of
 * every chain; a node cut off from its peers but not from ZooKeeper removes nobody, since its
 * silent peers still hold their sessions.
 */
class MinorityManagerTest {
  @TempDir Path tmp;

  /**
   * Three nodes, R = 3: one is killed, restarted, rebuilt and promoted; then the other two die at
   * once (cut off the network together, so that the survivor never sees two of three answering,
   * then closed: closing a node closes its ZooKeeper client, which ends its session as a crashed
   * process's session ends when it expires). The survivor must take both out of the layout within
   * the failure timeout and a few seconds, then serve every acknowledged write, read through it
   * alone (no other node runs), and take new appends.
   */
  @Test
  void theLastNodeStandingOfThreeServesEveryAcknowledgedWriteAndTakesNewOnes() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitStarted();
      List<Acked> acked = new ArrayList<>();
      appendUntil(c, acked, 30);
      Endpoint survivor = c.endpoints().get(2);
      c.kill(survivor);
      c.awaitLayout("without " + survivor, x -> x.removed().contains(survivor));
      appendUntil(c, acked, 60);
      c.restart(survivor);
      HealTest.awaitFullStrength(c, survivor, acked);
      appendUntil(c, acked, 90);

      List<Endpoint> dying = c.endpoints().stream().filter(e -> !e.equals(survivor)).toList();
      dying.forEach(c.faults()::partition);
      dying.forEach(c::kill);
      long killed = System.nanoTime();

      Layout alone =
          Awaitility.await("a layout of " + survivor + " alone")
              .atMost(Duration.ofSeconds(10))
              .pollInterval(Duration.ofMillis(20))
              .until(() -> c.agreed().value(), l -> l.allServers().equals(Set.of(survivor)));
      System.out.printf(
          "MinorityManagerTest: %s alone in the layout of epoch %d %d ms after the kills%n",
          survivor, alone.epoch(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed));
      assertThat(alone.sequencer()).isEqualTo(survivor);
      assertThat(alone.removed()).containsExactlyInAnyOrderElementsOf(dying);

      assertEveryAckedReadable(c, acked);
      appendUntil(c, acked, 120);
      assertEveryAckedReadable(c, acked);
    }
  }

  /**
   * Three nodes, R = 3, one of which judges silence after 1 s while the other two wait a minute.
   * That one is cut off from the other two but keeps its ZooKeeper session and reaches itself (so
   * it could seal itself and commit a layout without them); after its failure timeout it hears
   * neither peer, but both still hold their sessions: it must remove neither, for several failure
   * timeouts. (The other two, with their minute, remove nobody meanwhile either; every layout the
   * znode takes names all three.)
   */
  @Test
  void aNodeCutOffFromItsPeersButNotFromZooKeeperRemovesNobody() throws Exception {
    Duration quick = Duration.ofSeconds(1);
    try (ZkCluster c =
        ZkCluster.startEach(
            tmp,
            3,
            3,
            (e, cfg) ->
                cfg.withProbing(
                    cfg.probeInterval(), e.port() == 9001 ? quick : Duration.ofMinutes(1)))) {
      // On a loaded machine a node slow to start can be judged down by node-1 (1 s, no session
      // yet) and removed before the cut, then join again: what is tested is the cut, so it
      // starts from a layout that holds every node in its chains, none rebuilding.
      Layout started =
          c.awaitLayout(
              "every node serving in the layout",
              x ->
                  x.epoch() >= 2
                      && x.incarnations().keySet().containsAll(x.allServers())
                      && x.allServers().containsAll(c.endpoints())
                      && x.removed().isEmpty()
                      && c.endpoints().stream().noneMatch(x::isRebuilding));
      c.awaitAdopted(started.epoch());
      Endpoint cut = c.endpoints().get(0);
      List<Versioned<Layout>> history = new CopyOnWriteArrayList<>();
      ZkLayoutStore.Watch watch = c.store().watch(history::add);
      try (watch) {
        c.faults().cutOffFromPeers(cut);
        try {
          Awaitility.await("every node stays in the layout while " + cut + " is cut off")
              .during(quick.multipliedBy(6))
              .atMost(quick.multipliedBy(8))
              .pollInterval(Duration.ofMillis(50))
              .until(() -> c.agreed().value().allServers().containsAll(c.endpoints()));
        } catch (ConditionTimeoutException e) {
          // Say which layout left a node out, not only that one did (the managers log why).
          throw new AssertionError(
              e.getMessage() + "; layouts seen since the cut: " + describe(history), e);
        }
        c.faults().heal(cut);
      }
      for (Versioned<Layout> v : List.copyOf(history)) {
        assertThat(v.value().allServers())
            .as("nodes of the layout at epoch %d", v.value().epoch())
            .containsExactlyInAnyOrderElementsOf(c.endpoints());
        assertThat(v.value().removed()).isEmpty();
      }
    }
  }

  /** Each layout's epoch, nodes and removed nodes, in the order seen. */
  private static String describe(List<Versioned<Layout>> history) {
    StringBuilder b = new StringBuilder();
    for (Versioned<Layout> v : history) {
      b.append(
          String.format(
              "[epoch %d: nodes %s, removed %s] ",
              v.value().epoch(), v.value().allServers(), v.value().removed()));
    }
    return b.length() == 0 ? "none" : b.toString();
  }
}
