package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vcorfu.server.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's threads run under the scheduling policy {@code --cpu-scheduling} names. */
class CpuSchedulingTest {
  @TempDir Path dir;

  @BeforeEach
  void linuxWithChrt() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
    Process which = new ProcessBuilder("chrt", "--version").redirectErrorStream(true).start();
    which.getInputStream().readAllBytes();
    assumeTrue(which.waitFor(10, TimeUnit.SECONDS) && which.exitValue() == 0, "needs chrt");
  }

  @Test
  void everyThreadOfANodeRunsUnderBatchByDefault() {
    try (ServerProcess node = ServerProcess.start(ServerProcess.freePort(), List.of("--memory"))) {
      node.awaitReady();
      Map<Long, Integer> policies = CpuScheduling.policies(node.pid());
      assertThat(policies).hasSizeGreaterThan(10);
      assertThat(policies.values()).containsOnly(CpuScheduling.Policy.BATCH.kernel);
    }
  }

  @Test
  void normalLeavesEveryThreadUnderTheOrdinaryPolicy() {
    try (ServerProcess node =
        ServerProcess.start(
            ServerProcess.freePort(), List.of("--memory", "--cpu-scheduling", "normal"))) {
      node.awaitReady();
      assertThat(CpuScheduling.policies(node.pid()).values())
          .isNotEmpty()
          .containsOnly(CpuScheduling.Policy.NORMAL.kernel);
    }
  }

  @Test
  void aPolicyIsSetOnEveryThreadOfAProcessAndUndone() throws Exception {
    Process sleeper = new ProcessBuilder("sleep", "60").start();
    try {
      assertThat(CpuScheduling.apply(sleeper.pid(), CpuScheduling.Policy.BATCH)).isNull();
      assertThat(CpuScheduling.policies(sleeper.pid())).containsOnlyKeys(sleeper.pid());
      assertThat(CpuScheduling.allUnder(sleeper.pid(), CpuScheduling.Policy.BATCH)).isTrue();
      assertThat(CpuScheduling.apply(sleeper.pid(), CpuScheduling.Policy.NORMAL)).isNull();
      assertThat(CpuScheduling.allUnder(sleeper.pid(), CpuScheduling.Policy.NORMAL)).isTrue();
    } finally {
      sleeper.destroyForcibly().waitFor();
    }
  }

  @Test
  void aProcessThatIsGoneIsReportedNotThrown() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    assertThat(CpuScheduling.policies(gone.pid())).isEmpty();
    assertThat(CpuScheduling.apply(gone.pid(), CpuScheduling.Policy.BATCH)).isNotNull();
  }

  @Test
  void anUnknownPolicyIsRefusedWithOneLineAndNothingWritten() {
    Path data = dir.resolve("data");
    CliRun run = CliRun.of("server", "--data-dir", data.toString(), "--cpu-scheduling", "fast");
    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("'fast' is not a policy: give batch or normal");
    assertThat(data).doesNotExist();
  }
}
