package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cli.CliRun;
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
 * sequencer until the layout has moved the sequencer elsewhere, and resumes it (SIGCONT); or it
 * heals: restarts a killed replica on its data, and then on a wiped directory, each time until it
 * has been rebuilt and promoted. The merged history is checked by {@link LinearizabilityChecker}: a
 * call that failed (after riding through layout changes for the failover timeout) is pending, which
 * may have taken effect or not.
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
   * Grows the cluster by a fourth node ({@code cluster add-node --grow}) and waits until it is a
   * full member; returns it.
   */
  private static Endpoint grow(ProcessCluster cluster, Faults faults) throws Exception {
    Endpoint fresh = cluster.startExtraNode().endpoint();
    faults.mark("cluster add-node --grow " + fresh);
    CliRun added =
        CliRun.of(
            "cluster",
            "add-node",
            "--endpoint",
            cluster.endpointList(),
            "--grow",
            fresh.toString());
    assertThat(added.code()).as(added.out() + added.err()).isZero();
    Layout grown =
        cluster.awaitLayout(
            l ->
                l.allServers().contains(fresh)
                    && l.rebuilding().isEmpty()
                    && l.currentSegment().log().size() == 4);
    faults.markAndAwaitCalls("epoch " + grown.epoch() + ": grown by " + fresh);
    return fresh;
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
        tmpDir ->
            ProcessCluster.start(tmpDir, "linz", 3, List.of("--member-heal-delay-ms", "1000")),
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
        tmpDir -> ProcessCluster.startWithOneStreamNode(tmpDir, "linz"),
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

  /** What a test does to the cluster while the clients run. */
  private interface FaultScript {
    void run(ProcessCluster cluster, Faults faults) throws Exception;
  }

  /** The times of a script's steps on this machine's monotonic clock (shared with the clients). */
  private static final class Faults {
    private final String run;
    private final LongSupplier completed;
    final List<String> labels = new ArrayList<>();
    final List<Long> times = new ArrayList<>();

    /** The steps after which calls must complete: indexes into {@link #times}. */
    final List<Integer> awaited = new ArrayList<>();

    Faults(String run, LongSupplier completed) {
      this.run = run;
      this.completed = completed;
    }

    void mark(String label) {
      System.out.println(run + ": " + label);
      labels.add(label);
      times.add(System.nanoTime());
    }

    /** Marks a step, then waits until the clients have completed more calls since it. */
    void markAndAwaitCalls(String label) {
      mark(label);
      awaited.add(times.size() - 1);
      awaitCompleted(completed, completed.getAsLong() + CALLS_AFTER_FAULT, "after " + label);
    }
  }

  /**
   * Runs two register clients against a fresh three-node process cluster while {@code script}
   * injects faults; checks that calls invoked after each awaited step completed (the test is not
   * vacuous) and that the merged history is linearizable.
   */
  private void assertLinearizableWhile(String run, long leaseMs, FaultScript script)
      throws Exception {
    assertLinearizableWhile(
        run, leaseMs, tmpDir -> ProcessCluster.start(tmpDir, "linz", 3), script);
  }

  /** As above, on the cluster {@code cluster} starts in the directory it is given. */
  private void assertLinearizableWhile(
      String run,
      long leaseMs,
      java.util.function.Function<java.nio.file.Path, ProcessCluster> start,
      FaultScript script)
      throws Exception {
    long seed = System.nanoTime();
    System.out.println(run + " seed " + seed);
    List<Operation> history = new ArrayList<>();
    Faults faults;
    try (ProcessCluster cluster = start.apply(tmp.resolve("cluster"))) {
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
        faults = new Faults(run, completed);
        script.run(cluster, faults);
        for (RegisterHistoryProcess c : clients) {
          c.send("stop");
        }
        faults.mark("stop");
        for (RegisterHistoryProcess c : clients) {
          c.awaitExit(Duration.ofSeconds(60));
          history.addAll(c.history());
        }
      } finally {
        clients.forEach(RegisterHistoryProcess::close);
      }
    }

    long pending = history.stream().filter(Operation::pending).count();
    StringBuilder phases = new StringBuilder();
    long from = Long.MIN_VALUE;
    for (int i = 0; i < faults.times.size(); i++) {
      long to = faults.times.get(i);
      phases.append(
          String.format(
              "; until %s: %d", faults.labels.get(i), completedBetween(history, from, to)));
      from = to;
    }
    System.out.printf(
        "%s: %d calls, %d pending; completed calls invoked and returned%s; longest gap between"
            + " completions %s%n",
        run, history.size(), pending, phases, longestGap(history));
    for (int i : faults.awaited) {
      assertThat(completedBetween(history, faults.times.get(i), faults.times.get(i + 1)))
          .as("calls invoked after '%s' that completed before the next step", faults.labels.get(i))
          .isGreaterThanOrEqualTo(MIN_CALLS_AFTER_FAULT);
    }

    var result = new LinearizabilityChecker().check(history);
    System.out.println(run + ": " + result.outcome());
    assertThat(result.outcome())
        .as("seed %d, lease %d ms: %s", seed, leaseMs, result.summary())
        .isEqualTo(LinearizabilityChecker.Outcome.LINEARIZABLE);
  }

  /**
   * The longest time without a completed call, in ms, and where it began (ms after the first
   * completion): what a fault cost the clients.
   */
  private static String longestGap(List<Operation> history) {
    long[] done =
        history.stream()
            .filter(op -> !op.pending())
            .mapToLong(Operation::returned)
            .sorted()
            .toArray();
    long gap = 0;
    long at = 0;
    for (int i = 1; i < done.length; i++) {
      if (done[i] - done[i - 1] > gap) {
        gap = done[i] - done[i - 1];
        at = done[i - 1] - done[0];
      }
    }
    return String.format("%.0f ms (from %.0f ms)", gap / 1e6, at / 1e6);
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
