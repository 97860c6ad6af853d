package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.server.ServerProcess;
import org.junit.jupiter.api.Test;

/**
 * Histories of real client processes stay linearizable while the cluster under them fails over (see
 * {@link LinearizableFaultRun}): this test stops (SIGSTOP) a node that is not the sequencer for 4
 * s, the layout dropping it meanwhile, and then kills it (kill -9), then stops the sequencer for 4
 * s, the layout moving the sequencer elsewhere meanwhile, and resumes it (SIGCONT); or it heals:
 * restarts a killed replica on its data, and then on a wiped directory, each time until it has been
 * rebuilt and promoted.
 */
class FailoverLinearizabilityTest extends LinearizableFaultRun {
  /** How long the failover script keeps a node stopped. */
  private static final java.time.Duration PAUSE = java.time.Duration.ofSeconds(4);

  /** Two 4 s pauses: the clients keep calling through both, at several hundred calls a second. */
  @Override
  int callsPerThread() {
    return 15_000;
  }

  @Test
  void withoutReadLeasesTheHistoryAcrossAPausedReplicaAndAPausedSequencerIsLinearizable()
      throws Exception {
    assertLinearizableAcrossFailovers(0);
  }

  @Test
  void withOneSecondReadLeasesTheHistoryAcrossAPausedReplicaAndAPausedSequencerIsLinearizable()
      throws Exception {
    assertLinearizableAcrossFailovers(1000);
  }

  /**
   * The failover script: SIGSTOP of a replica for 4 s (the layout drops it meanwhile, and the
   * sequencer, which stays, serves the new epoch at once), then kill -9 of it while it is still
   * stopped; then SIGSTOP of the sequencer for 4 s (the layout moves the sequencer meanwhile), and
   * SIGCONT.
   */
  private void assertLinearizableAcrossFailovers(long leaseMs) throws Exception {
    assertLinearizableWhile(
        "FailoverLinearizabilityTest lease " + leaseMs + " ms",
        leaseMs,
        (cluster, faults) -> {
          Layout initial = cluster.newestLayout();
          Endpoint replica = cluster.otherThan(initial.sequencer());
          ServerProcess paused = cluster.processOf(replica);
          faults.mark("SIGSTOP of " + replica + " for 4 s");
          long pausedAt = System.nanoTime();
          paused.pause();
          Layout withoutReplica = cluster.awaitLayout(l -> l.removed().contains(replica));
          assertThat(withoutReplica.epoch()).isGreaterThan(initial.epoch());
          faults.markAndAwaitCalls("epoch " + withoutReplica.epoch() + " without " + replica);
          restOfThePause(pausedAt);
          faults.mark("kill -9 of " + replica + ", still stopped");
          paused.kill9();

          ServerProcess sequencer = cluster.processOf(withoutReplica.sequencer());
          Endpoint sequencerEndpoint = sequencer.endpoint();
          faults.mark("SIGSTOP of the sequencer " + sequencerEndpoint + " for 4 s");
          long sequencerPausedAt = System.nanoTime();
          sequencer.pause();
          Layout moved = cluster.awaitLayout(l -> !l.sequencer().equals(sequencerEndpoint));
          assertThat(moved.epoch()).isGreaterThan(withoutReplica.epoch());
          faults.markAndAwaitCalls(
              "epoch " + moved.epoch() + " with sequencer " + moved.sequencer());
          restOfThePause(sequencerPausedAt);
          sequencer.resume();
          faults.markAndAwaitCalls("SIGCONT of " + sequencerEndpoint);
        });
  }

  /** Lets the 4 s of a pause that began at {@code pausedAt} (nanoTime) run out. */
  private static void restOfThePause(long pausedAt) throws InterruptedException {
    long left = PAUSE.toNanos() - (System.nanoTime() - pausedAt);
    if (left > 0) {
      // The length of the fault, not a wait for a condition.
      Thread.sleep(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(left));
    }
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
