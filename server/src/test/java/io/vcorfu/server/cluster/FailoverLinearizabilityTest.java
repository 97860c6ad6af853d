package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.server.ServerProcess;
import org.junit.jupiter.api.Test;

/**
 * Histories of real client processes stay linearizable while the cluster under them fails over (see
 * {@link LinearizableFaultRun}): this test kills -9 a node that is not the sequencer, waits until
 * the layout has dropped it, then pauses (SIGSTOP) the sequencer until the layout has moved the
 * sequencer elsewhere, and resumes it (SIGCONT); or it heals: restarts a killed replica on its
 * data, and then on a wiped directory, each time until it has been rebuilt and promoted.
 */
class FailoverLinearizabilityTest extends LinearizableFaultRun {

  @Test
  void withoutReadLeasesTheHistoryAcrossAKilledReplicaAndAPausedSequencerIsLinearizable()
      throws Exception {
    assertLinearizableAcrossFailovers(0);
  }

  @Test
  void withOneSecondReadLeasesTheHistoryAcrossAKilledReplicaAndAPausedSequencerIsLinearizable()
      throws Exception {
    assertLinearizableAcrossFailovers(1000);
  }

  /**
   * The failover script: kill -9 of a replica, then SIGSTOP of the sequencer until the layout has
   * moved it, and SIGCONT.
   */
  private void assertLinearizableAcrossFailovers(long leaseMs) throws Exception {
    assertLinearizableWhile(
        "FailoverLinearizabilityTest lease " + leaseMs + " ms",
        leaseMs,
        (cluster, faults) -> {
          Layout initial = cluster.newestLayout();
          Endpoint replica = cluster.otherThan(initial.sequencer());
          faults.mark("kill -9 of " + replica);
          cluster.processOf(replica).kill9();
          Layout withoutReplica = cluster.awaitLayout(l -> l.removed().contains(replica));
          assertThat(withoutReplica.epoch()).isGreaterThan(initial.epoch());
          faults.markAndAwaitCalls("epoch " + withoutReplica.epoch() + " without " + replica);

          ServerProcess sequencer = cluster.processOf(withoutReplica.sequencer());
          Endpoint sequencerEndpoint = sequencer.endpoint();
          faults.mark("SIGSTOP of the sequencer " + sequencerEndpoint);
          sequencer.pause();
          Layout moved = cluster.awaitLayout(l -> !l.sequencer().equals(sequencerEndpoint));
          assertThat(moved.epoch()).isGreaterThan(withoutReplica.epoch());
          faults.mark("epoch " + moved.epoch() + " with sequencer " + moved.sequencer());
          sequencer.resume();
          faults.markAndAwaitCalls("SIGCONT of " + sequencerEndpoint);
        });
  }

  /**
   * The healing script: kill -9 of a replica; restarted on its data, it rejoins and is promoted;
   * killed again and restarted on a wiped directory, it is rebuilt from scratch and promoted.
   */
  @Test
  void theHistoryAcrossAReplicaKilledAndRestartedOnItsDataAndThenWipedIsLinearizable()
      throws Exception {
    assertLinearizableWhile(
        "FailoverLinearizabilityTest healing",
        0,
        (cluster, faults) -> {
          Endpoint replica = cluster.otherThan(cluster.newestLayout().sequencer());
          for (boolean wiped : new boolean[] {false, true}) {
            faults.mark("kill -9 of " + replica);
            cluster.processOf(replica).kill9();
            cluster.awaitLayout(l -> l.removed().contains(replica));
            faults.markAndAwaitCalls("removed " + replica);
            cluster.restart(replica, wiped);
            faults.mark("restarted " + replica + (wiped ? " on a wiped directory" : ""));
            Layout healed =
                cluster.awaitLayout(
                    l ->
                        l.allServers().contains(replica)
                            && !l.isRebuilding(replica)
                            && io.vcorfu.layout.LayoutChanges.underReplicated(l).isEmpty());
            faults.markAndAwaitCalls(
                "epoch " + healed.epoch() + ": " + replica + " rebuilt and promoted");
          }
        });
  }
}
