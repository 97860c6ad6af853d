package io.vcorfu.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** The main source files of every module, for the checks that read the whole code base. */
final class MainSources {
  private MainSources() {}

  /** The repository's root (this module's parent directory). */
  static Path root() {
    return Path.of("").toAbsolutePath().getParent();
  }

  /**
   * The text of every main source file ({@code src/main/java} of every module under {@code root}),
   * by its path from {@code root} with forward slashes, in path order.
   */
  static Map<String, String> read(Path root) throws IOException {
    Map<String, String> sources = new TreeMap<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.filter(m -> Files.exists(m.resolve("pom.xml"))).toList()) {
        Path main = module.resolve("src/main/java");
        if (!Files.isDirectory(main)) {
          continue;
        }
        try (Stream<Path> files = Files.walk(main)) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
            sources.put(root.relativize(f).toString().replace('\\', '/'), Files.readString(f));
          }
        }
      }
    }
    return sources;
  }
}
