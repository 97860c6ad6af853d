package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.server.cli.CliRun;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Histories of real client processes stay linearizable while the cluster under them changes its
 * members (see {@link LinearizableFaultRun}): it grows by a fourth node, drains a node onto the
 * others, rebuilds a failed node's chains on the other members and loses a node it just added, all
 * in one history; and it loses its only stream replica and hands the chain to a new node.
 */
class MembershipLinearizabilityTest extends LinearizableFaultRun {
  /** The membership script has nine steps: the clients keep calling through all of them. */
  @Override
  int callsPerThread() {
    return 15_000;
  }

  @Override
  Duration clientRun() {
    return Duration.ofSeconds(180);
  }

  /**
   * The membership script, on nodes that heal onto the other members a second after a loss ({@code
   * --member-heal-delay-ms 1000}), one step after another in one history:
   *
   * <ol>
   *   <li>growth: a fourth node grows the cluster ({@code cluster add-node --grow}), is rebuilt and
   *       promoted (stream chains give up a member, the log is striped over four nodes);
   *   <li>drain: {@code cluster remove-node} of one of the first three, with no spare: the other
   *       nodes take its places one at a time, each a rebuilding replica of the chains it takes
   *       while it serves its own, and it leaves once it holds none;
   *   <li>healing onto members: the cluster grows to four nodes again, then kill -9 of one of the
   *       older nodes, not restarted: the other nodes take its places one at a time and are
   *       promoted until every chain has three replicas again;
   *   <li>loss of a new node: the cluster grows to four nodes once more, then kill -9 of the node
   *       just added, and the others take its places.
   * </ol>
   *
   * <p>One history, not one per step: each step still waits for calls invoked after it to complete,
   * and a cluster and two client processes started once instead of three times are a third of the
   * processor time of the three runs.
   */
  @Test
  void theHistoryAcrossGrowthDrainHealingOntoMembersAndTheLossOfANewNodeIsLinearizable()
      throws Exception {
    assertLinearizableWhile(
        "MembershipLinearizabilityTest membership",
        0,
        (zk, dir, name) ->
            ProcessCluster.start(zk, dir, name, 3, List.of("--member-heal-delay-ms", "1000")),
        (cluster, faults) -> {
          Endpoint first = grow(cluster, faults);
          Endpoint leaving = olderNonSequencer(cluster, first);
          faults.mark("cluster remove-node " + leaving);
          CliRun removed =
              CliRun.of(
                  "cluster",
                  "remove-node",
                  "--endpoint",
                  cluster.endpointList(),
                  "--timeout-ms",
                  "60000",
                  leaving.toString());
          assertThat(removed.code()).as(removed.out() + removed.err()).isZero();
          assertThat(removed.out()).contains("onto the other nodes");
          Layout drained = awaitHealedWithout(cluster, leaving, true);
          faults.markAndAwaitCalls("epoch " + drained.epoch() + ": " + leaving + " drained");

          Endpoint second = grow(cluster, faults);
          Endpoint victim = olderNonSequencer(cluster, second);
          faults.mark("kill -9 of " + victim);
          cluster.processOf(victim).kill9();
          Layout healed = awaitHealedWithout(cluster, victim, false);
          faults.markAndAwaitCalls(
              "epoch " + healed.epoch() + ": the chains of " + victim + " rebuilt on the others");

          Endpoint third = grow(cluster, faults);
          faults.mark("kill -9 of " + third + ", the node just added");
          cluster.processOf(third).kill9();
          Layout without = awaitHealedWithout(cluster, third, false);
          faults.markAndAwaitCalls("epoch " + without.epoch() + " without " + third);
        });
  }

  /** A member that is neither the sequencer nor {@code fresh}, the node just added. */
  private static Endpoint olderNonSequencer(ProcessCluster cluster, Endpoint fresh)
      throws Exception {
    Layout grown = cluster.newestLayout();
    return grown.allServers().stream()
        .filter(e -> !e.equals(grown.sequencer()) && !e.equals(fresh))
        .findFirst()
        .orElseThrow();
  }

  /**
   * Waits until {@code gone} has left the layout ({@code retired}: drained; else removed) and every
   * chain has its replicas again on the three nodes left; returns that layout.
   */
  private static Layout awaitHealedWithout(ProcessCluster cluster, Endpoint gone, boolean retired)
      throws Exception {
    Layout healed =
        cluster.awaitLayout(
            l ->
                (retired ? l.retired() : l.removed()).contains(gone)
                    && l.rebuilding().isEmpty()
                    && io.vcorfu.layout.LayoutChanges.underReplicated(l).isEmpty());
    assertThat(healed.allServers()).hasSize(3).doesNotContain(gone);
    return healed;
  }

  /**
   * The degraded-mode script, on the paper's layout ({@code cluster init --nodes n0 --stream-nodes
   * n1 --replication 1}: every register's stream on n1 alone): kill -9 of n1 leaves the stream
   * chain empty and the log decides and serves the registers; then {@code cluster add-node} of n2,
   * running outside the layout, hands it the chain, and it copies the streams from the log.
   */
  @Test
  void theHistoryAcrossTheLossOfTheOnlyStreamReplicaAndItsTakeoverIsLinearizable()
      throws Exception {
    assertLinearizableWhile(
        "MembershipLinearizabilityTest degraded",
        0,
        ProcessCluster::startWithOneStreamNode,
        (cluster, faults) -> {
          Endpoint streamReplica = cluster.nodes().get(1);
          Endpoint spare = cluster.nodes().get(2);
          faults.mark("kill -9 of " + streamReplica + ", the only stream replica");
          cluster.processOf(streamReplica).kill9();
          Layout degraded = cluster.awaitLayout(l -> l.currentSegment().stream().get(0).isEmpty());
          faults.markAndAwaitCalls("epoch " + degraded.epoch() + ": the stream chain is empty");
          faults.mark("cluster add-node " + spare);
          CliRun added =
              CliRun.of(
                  "cluster", "add-node", "--endpoint", cluster.endpointList(), spare.toString());
          assertThat(added.code()).as(added.out() + added.err()).isZero();
          Layout takenUp =
              cluster.awaitLayout(l -> l.currentSegment().stream().get(0).equals(List.of(spare)));
          faults.markAndAwaitCalls(
              "epoch " + takenUp.epoch() + ": " + spare + " took the chain up");
        });
  }
}
