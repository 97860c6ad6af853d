package io.vcorfu.benchmarks.ycsb;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * The standard YCSB core workloads A to F, shipped as class-path resources {@code ycsb/workloada}
 * .. {@code ycsb/workloadf} (the same files as {@code benchmarks/ycsb/workloads/} in the source
 * tree), so the distribution jar runs them without the repository.
 */
public final class YcsbWorkloads {
  /** The workload letters, in order. */
  public static final List<String> LETTERS = List.of("a", "b", "c", "d", "e", "f");

  private YcsbWorkloads() {}

  /**
   * The workload letter for {@code name}: a letter a..f in either case, or {@code workloada} ..
   * {@code workloadf}.
   *
   * @throws IllegalArgumentException for anything else
   */
  public static String letter(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    if (n.startsWith("workload")) {
      n = n.substring("workload".length());
    }
    if (!LETTERS.contains(n)) {
      throw new IllegalArgumentException(
          "There is no YCSB workload '" + name + "'; choose one of a, b, c, d, e, f.");
    }
    return n;
  }

  /** The class-path resource holding workload {@code letter}. */
  public static String resource(String letter) {
    return "ycsb/workload" + letter(letter);
  }

  /** The properties of workload {@code letter}, read from the class path. */
  public static Properties load(String letter) {
    Properties props = new Properties();
    try (InputStream in = open(letter)) {
      props.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return props;
  }

  /**
   * Copies workload {@code letter} to a new file in {@code dir} (YCSB's {@code -P} wants a file)
   * and returns it. The caller deletes it.
   */
  public static Path extract(String letter, Path dir) throws IOException {
    Path file = Files.createTempFile(dir, "workload" + letter(letter) + "-", ".properties");
    try (InputStream in = open(letter)) {
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
    }
    return file;
  }

  private static InputStream open(String letter) {
    String resource = resource(letter);
    InputStream in = YcsbWorkloads.class.getClassLoader().getResourceAsStream(resource);
    if (in == null) {
      throw new IllegalStateException(
          "The workload resource " + resource + " is missing from the class path.");
    }
    return in;
  }
}
