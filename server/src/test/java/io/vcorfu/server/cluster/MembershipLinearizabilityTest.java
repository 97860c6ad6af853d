package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cli.CliRun;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Histories of real client processes stay linearizable while the cluster under them changes its
 * members (see {@link LinearizableFaultRun}): it grows by a fourth node and loses it, drains a node
 * onto the others, rebuilds a failed node's chains on the other members, and loses its only stream
 * replica and hands the chain to a new node.
 */
class MembershipLinearizabilityTest extends LinearizableFaultRun {

  /**
   * The growth script: a fourth node grows the cluster ({@code cluster add-node --grow}), is
   * rebuilt and promoted (stream chains give up a member, the log is striped over four nodes); then
   * kill -9 of that node.
   */
  @Test
  void theHistoryAcrossAGrowingClusterAndTheLossOfItsNewNodeIsLinearizable() throws Exception {
    assertLinearizableWhile(
        "FailoverLinearizabilityTest growth",
        0,
        (cluster, faults) -> {
          Endpoint fresh = grow(cluster, faults);
          ServerProcess extra = cluster.processOf(fresh);
          faults.mark("kill -9 of " + fresh);
          extra.kill9();
          Layout without = cluster.awaitLayout(l -> l.removed().contains(fresh));
          faults.markAndAwaitCalls("epoch " + without.epoch() + " without " + fresh);
        });
  }

  /**
   * The drain script: the cluster grows to four nodes (R = 3), then {@code cluster remove-node} of
   * one of the first three, with no spare: the other nodes take its places one at a time, each a
   * rebuilding replica of the chains it takes while it serves its own, and it leaves once it holds
   * none.
   */
  @Test
  void theHistoryAcrossANodeDrainedOntoTheOtherNodesIsLinearizable() throws Exception {
    assertLinearizableWhile(
        "FailoverLinearizabilityTest drain",
        0,
        (cluster, faults) -> {
          Endpoint fresh = grow(cluster, faults);
          Layout grown = cluster.newestLayout();
          Endpoint leaving =
              cluster.nodes().stream()
                  .filter(e -> !e.equals(grown.sequencer()) && !e.equals(fresh))
                  .findFirst()
                  .orElseThrow();
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
          Layout drained =
              cluster.awaitLayout(
                  l ->
                      l.retired().contains(leaving)
                          && l.rebuilding().isEmpty()
                          && io.vcorfu.layout.LayoutChanges.underReplicated(l).isEmpty());
          assertThat(drained.allServers()).hasSize(3).doesNotContain(leaving);
          faults.markAndAwaitCalls("epoch " + drained.epoch() + ": " + leaving + " drained");
        });
  }

  /**
   * The healing-onto-members script: the cluster grows to four nodes (R = 3), then kill -9 of one
   * of the first three, not restarted; a second later (the nodes run with {@code
   * --member-heal-delay-ms 1000}) the other nodes take its places one at a time, each a rebuilding
   * replica of the chains it joins while it serves its own, and are promoted until every chain has
   * three replicas again.
   */
  @Test
  void theHistoryAcrossAFailedNodeWhoseChainsAreRebuiltOnTheOtherNodesIsLinearizable()
      throws Exception {
    assertLinearizableWhile(
        "FailoverLinearizabilityTest members",
        0,
        (zk, dir, name) ->
            ProcessCluster.start(zk, dir, name, 3, List.of("--member-heal-delay-ms", "1000")),
        (cluster, faults) -> {
          Endpoint fresh = grow(cluster, faults);
          Layout grown = cluster.newestLayout();
          Endpoint victim =
              cluster.nodes().stream()
                  .filter(e -> !e.equals(grown.sequencer()) && !e.equals(fresh))
                  .findFirst()
                  .orElseThrow();
          faults.mark("kill -9 of " + victim);
          cluster.processOf(victim).kill9();
          Layout healed =
              cluster.awaitLayout(
                  l ->
                      l.removed().contains(victim)
                          && l.rebuilding().isEmpty()
                          && io.vcorfu.layout.LayoutChanges.underReplicated(l).isEmpty());
          assertThat(healed.allServers()).hasSize(3).doesNotContain(victim);
          faults.markAndAwaitCalls(
              "epoch " + healed.epoch() + ": the chains of " + victim + " rebuilt on the others");
        });
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
        "FailoverLinearizabilityTest degraded",
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
