package io.vcorfu.server.linearizability;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.server.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Histories of real client processes are linearizable, with read leases and without: one durable
 * node process and two client processes ({@link RegisterHistoryProcess}), each a runtime with eight
 * threads calling get and set at random on 16 registers opened as local views, for 10 s; every
 * call's invocation and return recorded; the merged history checked by {@link
 * LinearizabilityChecker}.
 *
 * <p>Clocks: the processes record {@code System.nanoTime()}, one clock for the whole machine; each
 * run checks that (see {@link RegisterHistoryProcess}).
 *
 * <p>Only the processes this test starts are ended, by their handles.
 */
class LeasedRegisterHistoryTest {
  /**
   * Eight threads per process, not the four: on the code before leases were made
   * linearizable four threads showed a violation in about one register per 20 s run, eight in six
   * or seven.
   */
  private static final int THREADS = 8;

  private static final int KEYS = 16;
  private static final int CALLS_PER_THREAD = 20_000;

  /**
   * 10 s: about 20,000 calls on a loaded two-core machine, and at the violation rate above about
   * three broken registers per run; 20 s cost twice the processor time for the same verdict.
   */
  private static final Duration RUN = Duration.ofSeconds(10);

  @TempDir Path tmp;

  @Test
  void withoutReadLeasesTheHistoryOfTwoClientProcessesIsLinearizable() throws Exception {
    assertLinearizable(0);
  }

  @Test
  void withOneSecondReadLeasesTheHistoryOfTwoClientProcessesIsLinearizable() throws Exception {
    assertLinearizable(1000);
  }

  /**
   * One process holds a lease and the other does not: the lone holder's own tokens are not pushed
   * to it at once (the sequencer's {@code ReadLeases}), and the other's answers wait for its
   * acknowledgement all the same.
   */
  @Test
  void withOneLoneLeaseHolderTheHistoryOfTwoClientProcessesIsLinearizable() throws Exception {
    assertLinearizable(1000, i -> i == 1 ? 1000 : 0);
  }

  private void assertLinearizable(long leaseMs) throws Exception {
    assertLinearizable(leaseMs, i -> leaseMs);
  }

  private void assertLinearizable(long leaseMs, java.util.function.IntToLongFunction leaseMsOf)
      throws Exception {
    long seed = System.nanoTime();
    System.out.println("LeasedRegisterHistoryTest lease " + leaseMs + " ms seed " + seed);
    int port = ServerProcess.freePort();
    List<Operation> history = new ArrayList<>();
    try (ServerProcess node = ServerProcess.start(port, tmp.resolve("data"), null).awaitReady()) {
      List<RegisterHistoryProcess> clients =
          RegisterHistoryProcess.startTogether(
              2,
              new RegisterHistoryClient.Settings(
                  node.endpoint().toString(),
                  leaseMs,
                  "p",
                  THREADS,
                  KEYS,
                  CALLS_PER_THREAD,
                  RUN.toMillis(),
                  seed,
                  tmp,
                  0,
                  0),
              tmp,
              leaseMsOf);
      try {
        for (RegisterHistoryProcess c : clients) {
          c.awaitExit(RUN.plusSeconds(60));
          history.addAll(c.history());
        }
      } finally {
        clients.forEach(RegisterHistoryProcess::close);
      }
    }
    long completed = history.stream().filter(op -> !op.pending()).count();
    System.out.println(
        "LeasedRegisterHistoryTest lease "
            + leaseMs
            + " ms: "
            + history.size()
            + " calls, "
            + completed
            + " completed");
    assertThat(completed).as("calls that completed").isGreaterThan(1_000);
    var result = new LinearizabilityChecker().check(history);
    System.out.println(
        "LeasedRegisterHistoryTest lease "
            + leaseMs
            + " ms: "
            + result.outcome()
            + ", registers not linearizable: "
            + result.keys().stream()
                .filter(k -> k.outcome() != LinearizabilityChecker.Outcome.LINEARIZABLE)
                .count());
    assertThat(result.outcome())
        .as("seed %d, lease %d ms: %s", seed, leaseMs, result.summary())
        .isEqualTo(LinearizabilityChecker.Outcome.LINEARIZABLE);
  }
}
