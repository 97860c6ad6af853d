package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The JVM flags a run gives its processes: bin/vcorfu's defaults, a named collector replacing. */
class VcorfuProcessesFlagsTest {
  @Test
  void nodesRunG1WithAPauseGoalAndOtherProcessesTheParallelCollector() {
    assertThat(VcorfuProcesses.flags(VcorfuProcesses.NODE_JAVA_OPTS, List.of("-Xmx2g")))
        .containsExactly("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=50", "-Xmx2g");
    assertThat(VcorfuProcesses.flags(VcorfuProcesses.JAVA_OPTS, List.of()))
        .containsExactly("-XX:+UseParallelGC");
  }

  @Test
  void aCollectorGivenReplacesTheDefaultAndItsPauseGoal() {
    assertThat(
            VcorfuProcesses.flags(
                VcorfuProcesses.NODE_JAVA_OPTS, List.of("-XX:+UseParallelGC", "-Xmx1g")))
        .containsExactly("-XX:+UseParallelGC", "-Xmx1g");
    assertThat(VcorfuProcesses.flags(VcorfuProcesses.JAVA_OPTS, List.of("-XX:+UseSerialGC")))
        .containsExactly("-XX:+UseSerialGC");
  }
}
