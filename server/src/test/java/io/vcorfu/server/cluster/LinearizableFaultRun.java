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
import io.vcorfu.server.linearizability.RegisterWorkload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The machinery of the failover history tests ({@link FailoverLinearizabilityTest}, {@link
 * MembershipLinearizabilityTest}): histories of real client processes stay linearizable while the
 * cluster under them changes. Three node processes ({@link ProcessCluster}), a cluster of each
 * test's own on a {@code vcorfu zookeeper} process the class's tests share (none of them fails
 * ZooKeeper; one per class saves a process start per test); two client processes ({@link
 * RegisterHistoryProcess}), each a runtime connected through all three nodes with four threads
 * calling get and set at random on eight registers; meanwhile a test's script injects faults or
 * membership changes. The merged history is checked by {@link LinearizabilityChecker}: a call that
 * failed (after riding through layout changes for the failover timeout) is pending, which may have
 * taken effect or not.
 *
 * <p>Not vacuous: after each step the script waits until the clients report a few hundred more
 * completed calls, and then asserts, from the recorded times, that calls invoked after the step
 * (and before the next) completed. Bounded: calls per thread, the clients' run time, and every
 * wait. The tests are split over two classes so that they run in parallel test processes.
 */
abstract class LinearizableFaultRun {
  private static final int THREADS = 4;
  private static final int KEYS = 8;
  private static final int CALLS_PER_THREAD = 5_000;
  private static final Duration RUN = Duration.ofSeconds(80);
  private static final long FAILOVER_TIMEOUT_MS = 5_000;

  /**
   * The longest a client thread waits before a call (a random time up to it, see {@link
   * RegisterWorkload}): eight threads still overlap their calls, at a pace the nodes serve with a
   * fraction of the processor time that back-to-back calls took (on a machine shared with other
   * tests, calls as fast as the nodes answer took every processor cycle the other tests left).
   */
  private static final int THINK_MS = 10;

  /** Calls the clients must complete after each fault before the test goes on. */
  private static final long CALLS_AFTER_FAULT = 300;

  /** Of those, how many must provably have been invoked after the fault (by recorded times). */
  private static final long MIN_CALLS_AFTER_FAULT = 150;

  /** One ZooKeeper for the class's tests, each cluster under a name of its own. */
  private static SharedZooKeeper zookeeper;

  @TempDir Path tmp;

  @BeforeAll
  static void startZooKeeper() {
    zookeeper = SharedZooKeeper.start();
  }

  @AfterAll
  static void stopZooKeeper() {
    zookeeper.close();
  }

  /**
   * How a test starts its cluster: on the class's ZooKeeper, in {@code dir}, named {@code name}.
   */
  interface ClusterStart {
    ProcessCluster start(ServerProcess zookeeper, Path dir, String name);
  }

  /**
   * The most calls each client thread makes (a bound; the clients stop when the script is done): a
   * class whose scripts keep faults in place for longer raises it, so that the clients do not run
   * out of calls before the script has checked the calls after its last step.
   */
  int callsPerThread() {
    return CALLS_PER_THREAD;
  }

  /**
   * The longest the clients run (a bound; they stop when the script is done): a class whose script
   * has more steps raises it, as {@link #callsPerThread}.
   */
  Duration clientRun() {
    return RUN;
  }

  /**
   * Grows the cluster by a fourth node ({@code cluster add-node --grow}) and waits until it is a
   * full member; returns it.
   */
  static Endpoint grow(ProcessCluster cluster, Faults faults) throws Exception {
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
    // A node added while a chain lacks a replica becomes a spare instead (the managers' removals
    // then say which node left and why): fail on that at once, not after the wait below.
    assertThat(added.out())
        .as(() -> "removals: " + cluster.removals())
        .contains("to grow the cluster");
    Layout grown =
        cluster.awaitLayout(
            l ->
                l.allServers().contains(fresh)
                    && l.rebuilding().isEmpty()
                    && l.currentSegment().log().size() == 4);
    faults.markAndAwaitCalls("epoch " + grown.epoch() + ": grown by " + fresh);
    return fresh;
  }

  /** What a test does to the cluster while the clients run. */
  interface FaultScript {
    void run(ProcessCluster cluster, Faults faults) throws Exception;
  }

  /** The times of a script's steps on this machine's monotonic clock (shared with the clients). */
  static final class Faults {
    private final String run;
    private final long began = System.nanoTime();
    private final LongSupplier completed;
    private final LongPredicate reportedSince;
    final List<String> labels = new ArrayList<>();
    final List<Long> times = new ArrayList<>();

    /** The steps after which calls must complete: indexes into {@link #times}. */
    final List<Integer> awaited = new ArrayList<>();

    Faults(String run, LongSupplier completed, LongPredicate reportedSince) {
      this.run = run;
      this.completed = completed;
      this.reportedSince = reportedSince;
    }

    void mark(String label) {
      System.out.printf("%s: %.1f s: %s%n", run, (System.nanoTime() - began) / 1e9, label);
      labels.add(label);
      times.add(System.nanoTime());
    }

    /**
     * Marks a step, then waits until the clients have completed more calls since it: counted from
     * the first report every client made after the step (an earlier one would leave calls that
     * returned before the step uncounted, and those would count as after it).
     */
    void markAndAwaitCalls(String label) {
      mark(label);
      long at = times.get(times.size() - 1);
      awaited.add(times.size() - 1);
      Awaitility.await("every client reports after " + label)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> reportedSince.test(at));
      awaitCompleted(completed, completed.getAsLong() + CALLS_AFTER_FAULT, "after " + label);
    }
  }

  /**
   * Runs two register clients against a fresh three-node process cluster while {@code script}
   * injects faults; checks that calls invoked after each awaited step completed (the test is not
   * vacuous) and that the merged history is linearizable.
   */
  void assertLinearizableWhile(String run, long leaseMs, FaultScript script) throws Exception {
    assertLinearizableWhile(
        run, leaseMs, (zk, dir, name) -> ProcessCluster.start(zk, dir, name, 3, List.of()), script);
  }

  /** As above, on the cluster {@code start} starts. */
  void assertLinearizableWhile(String run, long leaseMs, ClusterStart start, FaultScript script)
      throws Exception {
    long seed = System.nanoTime();
    System.out.println(run + " seed " + seed);
    long begun = System.nanoTime();
    List<Operation> history = new ArrayList<>();
    Faults faults;
    try (ProcessCluster cluster =
        start.start(
            zookeeper.process(), tmp.resolve("cluster"), zookeeper.newClusterName("linz"))) {
      List<RegisterHistoryProcess> clients =
          RegisterHistoryProcess.startTogether(
              2,
              new RegisterHistoryClient.Settings(
                  cluster.endpointList(),
                  leaseMs,
                  "p",
                  THREADS,
                  KEYS,
                  callsPerThread(),
                  clientRun().toMillis(),
                  seed,
                  tmp,
                  FAILOVER_TIMEOUT_MS,
                  THINK_MS),
              tmp);
      try {
        LongSupplier completed =
            () -> clients.stream().mapToLong(RegisterHistoryProcess::completed).sum();
        awaitCompleted(completed, CALLS_AFTER_FAULT, "before any fault");
        System.out.printf(
            "%s: cluster and clients started, %d calls completed, in %.1f s%n",
            run, CALLS_AFTER_FAULT, (System.nanoTime() - begun) / 1e9);
        faults =
            new Faults(
                run, completed, at -> clients.stream().allMatch(c -> c.reportedAt() - at >= 0));
        try {
          script.run(cluster, faults);
        } catch (Exception | AssertionError e) {
          throw new AssertionError(
              "step failed after '"
                  + (faults.labels.isEmpty()
                      ? "start"
                      : faults.labels.get(faults.labels.size() - 1))
                  + "' ("
                  + oneLine(e)
                  + "); fault marks and node logs kept in "
                  + keep(run, seed, List.of(), faults),
              e);
        }
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

    long checking = System.nanoTime();
    var result = new LinearizabilityChecker().check(history);
    System.out.printf(
        "%s: %s (checked in %.1f s)%n",
        run, result.outcome(), (System.nanoTime() - checking) / 1e9);
    String kept =
        result.outcome() == LinearizabilityChecker.Outcome.LINEARIZABLE
            ? ""
            : "; history, fault marks and node logs kept in " + keep(run, seed, history, faults);
    assertThat(result.outcome())
        .as("seed %d, lease %d ms: %s%s", seed, leaseMs, result.summary(), kept)
        .isEqualTo(LinearizabilityChecker.Outcome.LINEARIZABLE);
  }

  /**
   * A failed step's message on one line, at most 600 characters: the build's summary prints only
   * the outer message, and a CI log is often all there is to read.
   */
  private static String oneLine(Throwable e) {
    String m = String.valueOf(e.getMessage()).strip().replaceAll("\\s*\\n\\s*", " | ");
    return e.getClass().getSimpleName()
        + ": "
        + (m.length() > 600 ? m.substring(0, 600) + "..." : m);
  }

  /**
   * Keeps what a history that failed its check (or a step that failed: no history yet) needs to be
   * understood, in {@code target/linearizability-failures/RUN-SEED/}: the merged history ({@code
   * history.txt}, one {@link Operation#format} line each), the fault marks at the same clock
   * ({@code faults.txt}), and every log file the cluster's processes wrote; returns the directory.
   */
  private Path keep(String run, long seed, List<Operation> history, Faults faults)
      throws java.io.IOException {
    Path dir =
        Path.of(
                "target",
                "linearizability-failures",
                run.replaceAll("[^A-Za-z0-9]+", "-") + "-" + seed)
            .toAbsolutePath();
    java.nio.file.Files.createDirectories(dir);
    java.nio.file.Files.write(
        dir.resolve("history.txt"), history.stream().map(Operation::format).toList());
    List<String> marks = new ArrayList<>();
    for (int i = 0; i < faults.times.size(); i++) {
      marks.add(faults.times.get(i) + " " + faults.labels.get(i));
    }
    java.nio.file.Files.write(dir.resolve("faults.txt"), marks);
    try (var files = java.nio.file.Files.walk(tmp)) {
      for (Path f : files.filter(f -> f.toString().endsWith(".log")).toList()) {
        java.nio.file.Files.copy(
            f,
            dir.resolve(tmp.relativize(f).toString().replace('/', '_')),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return dir;
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
