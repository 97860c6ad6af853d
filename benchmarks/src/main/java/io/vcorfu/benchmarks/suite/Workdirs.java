package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Scratch directories of a run, and the log tails a failure shows. */
final class Workdirs {
  private Workdirs() {}

  /**
   * DIR when given (kept afterwards), else a fresh /tmp/vcorfu-PREFIX.XXXXXX removed when PROCESSES
   * closes, after every process it started has ended.
   */
  static Path open(Path dir, String prefix, Processes processes) throws IOException {
    if (dir != null) {
      Files.createDirectories(dir);
      return dir.toAbsolutePath();
    }
    Path fresh = Files.createTempDirectory(Path.of("/tmp"), "vcorfu-" + prefix + ".");
    processes.atClose(() -> deleteTree(fresh));
    return fresh;
  }

  /** Removes DIR and everything under it; nothing when it does not exist. */
  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The last N lines of LOG on standard error (nothing when it cannot be read). */
  static void showTail(Path log, int n) {
    if (log == null) {
      return;
    }
    try {
      List<String> lines = Files.readAllLines(log);
      lines.subList(Math.max(0, lines.size() - n), lines.size()).forEach(System.err::println);
    } catch (IOException | UncheckedIOException e) {
      // nothing to show
    }
  }
}
