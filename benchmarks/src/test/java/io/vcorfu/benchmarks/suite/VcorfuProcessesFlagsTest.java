package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM flags a run gives its processes: bin/vcorfu's defaults, a named collector replacing, and
 * the server jar's class-data archive when bin/vcorfu would map it.
 */
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

  @Test
  void theServerArchiveIsMappedOnlyWhenPresentNonEmptyAndNotOlderThanTheJar(@TempDir Path dir)
      throws IOException {
    Path jar = Files.write(dir.resolve("vcorfu-server.jar"), new byte[] {1});
    Path archive = dir.resolve("vcorfu-server.jsa");
    assertThat(VcorfuProcesses.archiveFlags(jar)).as("no archive").isEmpty();

    Files.write(archive, new byte[0]);
    assertThat(VcorfuProcesses.archiveFlags(jar)).as("an empty archive").isEmpty();

    Files.write(archive, new byte[] {1});
    Files.setLastModifiedTime(jar, FileTime.fromMillis(1_000_000));
    Files.setLastModifiedTime(archive, FileTime.fromMillis(2_000_000));
    assertThat(VcorfuProcesses.archiveFlags(jar))
        .contains("-XX:SharedArchiveFile=" + archive, "-XX:ArchiveRelocationMode=1");

    Files.setLastModifiedTime(jar, FileTime.fromMillis(3_000_000));
    assertThat(VcorfuProcesses.archiveFlags(jar)).as("a jar rebuilt after its archive").isEmpty();
  }
}
