package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * No main source file of any module is over {@link #MAX_LINES} lines: a file that long does more
 * than one job, and is split by the job. The files still over it are listed in {@link #OVER} with
 * the size they may not grow past; the list only shrinks (a listed file that fits fails the test
 * until it is taken off the list).
 */
class RoomSizeTest {
  static final int MAX_LINES = 500;

  /** Main source files still over the limit (path from the repository root), and their ceiling. */
  private static final Map<String, Integer> OVER = Map.of();

  @Test
  void noMainSourceFileIsOverTheLimitOrGrowsPastItsCeiling() throws IOException {
    Map<String, Long> sizes = new TreeMap<>();
    MainSources.read(MainSources.root())
        .forEach((file, text) -> sizes.put(file, text.lines().count()));
    assertThat(sizes)
        .as("main sources found")
        .containsKey("server/src/main/java/io/vcorfu/server/Node.java");
    List<String> wrong = new ArrayList<>();
    sizes.forEach(
        (file, lines) -> {
          Integer ceiling = OVER.get(file);
          if (ceiling == null && lines > MAX_LINES) {
            wrong.add(file + ": " + lines + " lines, over " + MAX_LINES + ": split it by job");
          } else if (ceiling != null && lines > ceiling) {
            wrong.add(file + ": " + lines + " lines, grown past its ceiling of " + ceiling);
          } else if (ceiling != null && lines <= MAX_LINES) {
            wrong.add(file + ": " + lines + " lines, fits now: take it off RoomSizeTest.OVER");
          }
        });
    OVER.keySet().stream()
        .filter(f -> !sizes.containsKey(f))
        .forEach(f -> wrong.add(f + ": listed in RoomSizeTest.OVER but gone"));
    assertThat(wrong).as("main source files and the %d-line limit", MAX_LINES).isEmpty();
  }
}
