package io.vcorfu.benchmarks.suite;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the checkout's benchmarks directory is, found from this tool's own jar. */
final class SuiteFiles {
  private SuiteFiles() {}

  /**
   * The benchmarks directory of the checkout this tool runs from (its jar is
   * benchmarks/target/vcorfu-all.jar), or the working directory's benchmarks/ when it cannot tell.
   */
  static Path benchmarksDir() {
    try {
      Path jar =
          Path.of(SuiteFiles.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path dir = jar.toAbsolutePath().getParent().getParent();
      if (dir != null && Files.isDirectory(dir.resolve("peers"))) {
        return dir;
      }
    } catch (java.net.URISyntaxException | RuntimeException e) {
      // fall through
    }
    return Path.of("benchmarks").toAbsolutePath();
  }
}
