package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.Endpoint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two processes racing compare-and-sets on one layout file never both win the same version. */
class FileLayoutStoreProcessTest {
  static final int ATTEMPTS = 150;

  @TempDir Path dir;

  @Test
  void twoProcessesNeverBothWinTheSameVersion() throws Exception {
    Path file = dir.resolve("layout.json");
    Layout initial = Layout.singleNode(new Endpoint("127.0.0.1", 9000), "c1");
    try (FileLayoutStore store = new FileLayoutStore(file)) {
      store.compareAndSet(LayoutStore.NO_VERSION, initial).join();
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<Process> children = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        children.add(
            new ProcessBuilder(
                    java,
                    "-cp",
                    System.getProperty("java.class.path"),
                    FileLayoutStoreCasWorker.class.getName(),
                    file.toString(),
                    Integer.toString(ATTEMPTS))
                .redirectErrorStream(true)
                .start());
      }
      int totalWins = 0;
      for (Process p : children) {
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("worker %d finished", p.pid()).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.exitValue()).as("worker output: %s", out).isZero();
        assertThat(out).startsWith("wins=");
        totalWins += Integer.parseInt(out.substring(out.lastIndexOf('=') + 1));
      }
      try (FileLayoutStore store = new FileLayoutStore(file)) {
        Versioned<Layout> last = store.get().join();
        // Every win advanced the version by exactly one; a double win would leave fewer versions.
        assertThat(last.version()).isEqualTo(totalWins);
        assertThat(last.value().epoch()).isEqualTo(initial.epoch() + totalWins);
        assertThat(totalWins).isGreaterThanOrEqualTo(ATTEMPTS);
      }
    } finally {
      for (Process p : children) {
        if (p.isAlive()) {
          p.destroyForcibly();
        }
      }
    }
  }
}
