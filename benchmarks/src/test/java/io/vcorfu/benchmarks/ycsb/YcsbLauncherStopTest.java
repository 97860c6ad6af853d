package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vcorfu.server.LocalNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vcorfu bench ycsb} runs each phase in a JVM of its own; a launcher stopped by a signal
 * (SIGTERM: a supervisor's stop, {@code kill}) stops that JVM with it, instead of leaving it to
 * load the server with nobody reading its report.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class YcsbLauncherStopTest {
  @TempDir Path dir;

  @Test
  void aLauncherStoppedBySigtermStopsItsPhaseJvm() throws Exception {
    try (LocalNode node = LocalNode.start()) {
      List<String> command =
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp",
              System.getProperty("java.class.path"),
              "io.vcorfu.benchmarks.BenchCli",
              "ycsb",
              "--db",
              "vcorfu",
              "--workload",
              "a",
              "--records",
              "1000000",
              "--operations",
              "1000000",
              "--threads",
              "1",
              "--endpoint",
              node.endpoint().toString());
      Path output = dir.resolve("launcher.out");
      Process launcher =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      ProcessHandle phase = null;
      try {
        // The load phase of a million records runs far longer than this test waits.
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> phaseOf(launcher).isPresent() || !launcher.isAlive());
        assertThat(launcher.isAlive())
            .as("the launcher is still running; it printed:%n%s", Files.readString(output))
            .isTrue();
        phase = phaseOf(launcher).orElseThrow();
        launcher.destroy(); // SIGTERM
        assertThat(launcher.waitFor(30, TimeUnit.SECONDS)).as("the launcher stopped").isTrue();
        ProcessHandle started = phase;
        await().atMost(Duration.ofSeconds(30)).until(() -> !started.isAlive());
      } finally {
        // Whatever happened above, nothing this test started outlives it.
        launcher.descendants().forEach(ProcessHandle::destroyForcibly);
        if (phase != null) {
          phase.destroyForcibly();
        }
        launcher.destroyForcibly();
      }
    }
  }

  /** The phase JVM the launcher started, once it runs: the launcher's only child process. */
  private static Optional<ProcessHandle> phaseOf(Process launcher) {
    return launcher.children().findFirst();
  }
}
