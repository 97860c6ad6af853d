package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The objects suite's table, against what run-objects.sh's awk made of the same raw lines
 * (objects-table.md was written by it): rows that pass, a failed check, a mode that could not run,
 * a run stopped early and an error line.
 */
class ObjectsTableTest {
  private static String resource(String name) throws IOException {
    try (InputStream in = ObjectsTableTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void theTableIsTheScriptsToTheByte() throws IOException {
    assertThat(ObjectsTable.of(resource("objects-raw.txt").lines().toList()))
        .isEqualTo(resource("objects-table.md"));
  }

  @Test
  void theSixteenRunsAreTheScripts() {
    assertThat(ObjectsSuite.RUNS).hasSize(16);
    assertThat(ObjectsSuite.RUNS.get(15))
        .containsExactly("ro-tx-remote", "--threads", "4", "--random-snapshot");
  }
}
