package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.linearizability.LinearizabilityChecker;
import io.vcorfu.server.linearizability.Operation;
import io.vcorfu.server.linearizability.RegisterHistoryClient;
import io.vcorfu.server.linearizability.RegisterHistoryProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Histories of real client processes stay linearizable while the cluster under them fails over:
 * {@code vcorfu zookeeper} and three node processes ({@link ProcessCluster}); two client processes
 * ({@link RegisterHistoryProcess}), each a runtime connected through all three nodes with four
 * threads calling get and set at random on eight registers; meanwhile this test kills -9 a node
 * that is not the sequencer, waits until the layout has dropped it, then pauses (SIGSTOP) the
 * sequencer until the layout has moved the sequencer elsewhere, and resumes it (SIGCONT). The
 * merged history is checked by {@link LinearizabilityChecker}: a call that failed (after riding
 * through layout changes for the failover timeout) is pending, which may have taken effect or not.
 *
 * <p>Not vacuous: after each fault the test waits until the clients report a few hundred more
 * completed calls, and then asserts, from the recorded times, that calls invoked after the fault
 * (and before the next) completed. Bounded: calls per thread, the clients' run time, and every
 * wait.
 */
class FailoverLinearizabilityTest {
  private static final int THREADS = 4;
  private static final int KEYS = 8;
  private static final int CALLS_PER_THREAD = 5_000;
  private static final Duration RUN = Duration.ofSeconds(80);
  private static final long FAILOVER_TIMEOUT_MS = 5_000;

  /** Calls the clients must complete after each fault before the test goes on. */
  private static final long CALLS_AFTER_FAULT = 300;

  /** Of those, how many must provably have been invoked after the fault (by recorded times). */
  private static final long MIN_CALLS_AFTER_FAULT = 150;

  @TempDir Path tmp;

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

  /** Times of the faults on this machine's monotonic clock (shared with the clients). */
  private record Faults(
      long killed, long removed, long paused, long moved, long resumed, long stopped) {}

  private void assertLinearizableAcrossFailovers(long leaseMs) throws Exception {
    long seed = System.nanoTime();
    String run = "FailoverLinearizabilityTest lease " + leaseMs + " ms";
    System.out.println(run + " seed " + seed);
    List<Operation> history = new ArrayList<>();
    Faults faults;
    Layout initial;
    Layout withoutReplica;
    Layout movedSequencer;
    try (ProcessCluster cluster = ProcessCluster.start(tmp.resolve("cluster"), "linz", 3)) {
      List<RegisterHistoryProcess> clients = new ArrayList<>();
      try {
        for (int p = 1; p <= 2; p++) {
          clients.add(
              RegisterHistoryProcess.start(
                  new RegisterHistoryClient.Settings(
                      cluster.endpointList(),
                      leaseMs,
                      "p" + p,
                      THREADS,
                      KEYS,
                      CALLS_PER_THREAD,
                      RUN.toMillis(),
                      seed + 1000L * p,
                      tmp.resolve("history-" + p),
                      FAILOVER_TIMEOUT_MS)));
        }
        for (RegisterHistoryProcess c : clients) {
          c.awaitLine("ready", Duration.ofSeconds(60));
        }
        for (RegisterHistoryProcess c : clients) {
          c.send("go");
        }
        LongSupplier completed =
            () -> clients.stream().mapToLong(RegisterHistoryProcess::completed).sum();
        awaitCompleted(completed, CALLS_AFTER_FAULT, "before any fault");

        initial = cluster.newestLayout();
        Endpoint replica = cluster.otherThan(initial.sequencer());
        System.out.println(run + ": kill -9 of " + replica + " (epoch " + initial.epoch() + ")");
        long killed = System.nanoTime();
        cluster.processOf(replica).kill9();
        withoutReplica = cluster.awaitLayout(l -> l.removed().contains(replica));
        long removed = System.nanoTime();
        System.out.println(
            run + ": epoch " + withoutReplica.epoch() + " without " + replica + " agreed");
        awaitCompleted(
            completed, completed.getAsLong() + CALLS_AFTER_FAULT, "after the replica's removal");

        ServerProcess sequencer = cluster.processOf(withoutReplica.sequencer());
        Endpoint sequencerEndpoint = sequencer.endpoint();
        System.out.println(run + ": SIGSTOP of the sequencer " + sequencerEndpoint);
        long paused = System.nanoTime();
        sequencer.pause();
        movedSequencer = cluster.awaitLayout(l -> !l.sequencer().equals(sequencerEndpoint));
        long moved = System.nanoTime();
        System.out.println(
            run
                + ": epoch "
                + movedSequencer.epoch()
                + " with sequencer "
                + movedSequencer.sequencer()
                + " agreed; SIGCONT of "
                + sequencerEndpoint);
        sequencer.resume();
        long resumed = System.nanoTime();
        awaitCompleted(
            completed, completed.getAsLong() + CALLS_AFTER_FAULT, "after the sequencer moved");
        for (RegisterHistoryProcess c : clients) {
          c.send("stop");
        }
        long stopped = System.nanoTime();
        faults = new Faults(killed, removed, paused, moved, resumed, stopped);
        for (RegisterHistoryProcess c : clients) {
          c.awaitExit(Duration.ofSeconds(60));
          history.addAll(c.history());
        }
      } finally {
        clients.forEach(RegisterHistoryProcess::close);
      }
    }

    long pending = history.stream().filter(Operation::pending).count();
    long beforeKill = completedBetween(history, Long.MIN_VALUE, faults.killed());
    long duringRemoval = completedBetween(history, faults.killed(), faults.removed());
    long afterRemoval = completedBetween(history, faults.removed(), faults.paused());
    long duringPause = completedBetween(history, faults.paused(), faults.moved());
    long afterResume = completedBetween(history, faults.resumed(), Long.MAX_VALUE);
    System.out.printf(
        "%s: %d calls, %d pending; completed calls invoked and returned before the kill %d,"
            + " until the replica's removal (%d ms) %d, then until the pause (%d ms) %d, while the"
            + " sequencer was paused until it moved (%d ms) %d, after the resume (%d ms) %d%n",
        run,
        history.size(),
        pending,
        beforeKill,
        (faults.removed() - faults.killed()) / 1_000_000,
        duringRemoval,
        (faults.paused() - faults.removed()) / 1_000_000,
        afterRemoval,
        (faults.moved() - faults.paused()) / 1_000_000,
        duringPause,
        (faults.stopped() - faults.resumed()) / 1_000_000,
        afterResume);
    assertThat(withoutReplica.epoch()).isGreaterThan(initial.epoch());
    assertThat(movedSequencer.epoch()).isGreaterThan(withoutReplica.epoch());
    assertThat(afterRemoval)
        .as("calls invoked after the replica's removal that completed before the pause")
        .isGreaterThanOrEqualTo(MIN_CALLS_AFTER_FAULT);
    assertThat(afterResume)
        .as("calls invoked after the old sequencer resumed that completed")
        .isGreaterThanOrEqualTo(MIN_CALLS_AFTER_FAULT);

    var result = new LinearizabilityChecker().check(history);
    System.out.println(run + ": " + result.outcome());
    assertThat(result.outcome())
        .as("seed %d, lease %d ms: %s", seed, leaseMs, result.summary())
        .isEqualTo(LinearizabilityChecker.Outcome.LINEARIZABLE);
  }

  /** Calls that completed, invoked at or after {@code from} and returned before {@code to}. */
  private static long completedBetween(List<Operation> history, long from, long to) {
    return history.stream()
        .filter(op -> !op.pending() && op.invoked() >= from && op.returned() < to)
        .count();
  }

  private static void awaitCompleted(LongSupplier completed, long atLeast, String when) {
    Awaitility.await(atLeast + " calls completed " + when)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> completed.getAsLong() >= atLeast);
  }
}
