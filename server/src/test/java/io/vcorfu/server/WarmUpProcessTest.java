package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node stopped (SIGTERM) while it warms up leaves no temporary directory behind, and has not
 * touched its own data directory: a real {@code vcorfu server --warm-up-s} process.
 */
class WarmUpProcessTest {
  @TempDir Path tmp;

  @Test
  void aNodeStoppedDuringItsWarmUpRemovesTheWarmUpsDirectory() throws Exception {
    Path scratch = Files.createDirectory(tmp.resolve("scratch"));
    Path data = tmp.resolve("data");
    int port = Scratch.freeLocalPort();
    try (ServerProcess node =
        ServerProcess.startCli(
            port,
            List.of("-Djava.io.tmpdir=" + scratch),
            List.of(
                "server",
                "--port",
                Integer.toString(port),
                "--data-dir",
                data.toString(),
                "--warm-up-s",
                "120"))) {
      // Stopped once the throwaway node has files of its own in the warm-up's directory.
      Awaitility.await("the warm-up writing its throwaway node's files")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> node.isAlive() && holdsFiles(scratch));
      assertThat(node.output()).noneMatch(l -> l.contains(" warmed up: "));

      node.signal("TERM");
      node.awaitExit(Duration.ofSeconds(60));
    }
    try (Stream<Path> left = Files.list(scratch)) {
      assertThat(left).isEmpty();
    }
    assertThat(data).doesNotExist();
  }

  private static boolean holdsFiles(Path scratch) throws Exception {
    try (Stream<Path> all = Files.walk(scratch)) {
      return all.anyMatch(Files::isRegularFile);
    }
  }
}
