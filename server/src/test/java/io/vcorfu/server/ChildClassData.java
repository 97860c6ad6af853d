package io.vcorfu.server;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A class-data-sharing archive for the test's child JVMs, so that each node, ZooKeeper and client
 * process maps its classes instead of reading, verifying and linking them again: the suite starts a
 * few hundred children on two cores, and class loading is a large part of each one's start.
 *
 * <p>A JVM writes or maps such an archive only for a class path of jar files, so the class path's
 * directories (this module's classes and test classes) are packed into jars once; a training child
 * ({@link ChildJvmTraining}) then loads the classes children use and writes the archive as it
 * exits. All of it is keyed by the class path and the size and time of every file on it, kept under
 * {@code target/child-jvm/KEY}, made once per build by whichever test JVM asks first (a file lock
 * keeps the parallel test JVMs from making it twice) and in the background: children started before
 * it is ready run on the plain class path. Nothing changes what a child does: a child whose JVM
 * cannot use the archive runs without it, silently ({@code -Xshare:auto}, the default).
 */
final class ChildClassData {
  /** A child's class path and, when ready, the archive to map. */
  record Launch(String classPath, Path archive) {}

  /**
   * The system property that turns the archive on (the server module's tests set it: they start a
   * few hundred children; a module whose tests start a handful would pay more for the training than
   * it saves).
   */
  static final String ENABLED = "vcorfu.test.childArchive";

  private static final Path ROOT = Path.of("target", "child-jvm");

  /**
   * How long the training child may take: about 25 s on an idle two-core host, but it shares the
   * processors with the test JVMs and their children, and on a slow hour it took over three
   * minutes.
   */
  private static final long TRAINING_TIMEOUT_S = 600;

  private static CompletableFuture<Launch> preparation;

  private ChildClassData() {}

  /**
   * What a child starts with now: the jar class path and archive once they are ready, else this
   * JVM's class path (and the preparation starts, once per JVM).
   */
  static Launch launch() {
    if (!Boolean.getBoolean(ENABLED)) {
      return new Launch(System.getProperty("java.class.path"), null);
    }
    Launch l = preparation().getNow(null);
    return l != null ? l : new Launch(System.getProperty("java.class.path"), null);
  }

  /**
   * Waits up to {@code timeout} for the archive (starting its preparation if no child has); the
   * launch with it, or null if it could not be made.
   */
  static Launch awaitArchive(Duration timeout) throws Exception {
    return preparation().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static synchronized CompletableFuture<Launch> preparation() {
    if (preparation == null) {
      preparation = new CompletableFuture<>();
      Thread t = new Thread(ChildClassData::prepareQuietly, "child-class-data");
      t.setDaemon(true);
      t.start();
    }
    return preparation;
  }

  private static void prepareQuietly() {
    Launch l = null;
    try {
      l = prepare();
    } catch (IOException | RuntimeException e) {
      System.out.println("child JVMs run without a class-data archive: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      preparation.complete(l);
    }
  }

  /** Makes (or finds) the packed class path and the archive; null if training failed. */
  private static Launch prepare() throws IOException, InterruptedException {
    List<Path> entries = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      if (!e.isEmpty()) {
        entries.add(Path.of(e).toAbsolutePath());
      }
    }
    Path dir = ROOT.resolve(key(entries)).toAbsolutePath();
    Files.createDirectories(dir);
    try (FileChannel lockFile =
        FileChannel.open(
            dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FileLock lock = lockFile.lock();
      try {
        return prepareLocked(entries, dir);
      } finally {
        lock.release();
      }
    }
  }

  private static Launch prepareLocked(List<Path> entries, Path dir)
      throws IOException, InterruptedException {
    Path archive = dir.resolve("children.jsa");
    Path classPathFile = dir.resolve("class-path");
    if (Files.exists(dir.resolve("failed"))) {
      return null;
    }
    if (!Files.exists(classPathFile)) {
      removeOthers(dir);
      String classPath = packed(entries, dir);
      if (!train(classPath, archive, dir.resolve("training.log"))) {
        Files.writeString(dir.resolve("failed"), "see training.log\n");
        return null;
      }
      Files.writeString(classPathFile, classPath);
    }
    return new Launch(Files.readString(classPathFile), archive);
  }

  /** Removes the archives of earlier builds (best effort: a child may still map one). */
  private static void removeOthers(Path keep) throws IOException {
    try (Stream<Path> dirs = Files.list(ROOT.toAbsolutePath())) {
      for (Path d : (Iterable<Path>) dirs.filter(d -> !d.equals(keep))::iterator) {
        try (Stream<Path> files = Files.walk(d)) {
          files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
      }
    }
  }

  /** The class path with each directory replaced by a jar of its files, in the same order. */
  private static String packed(List<Path> entries, Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    int n = 0;
    for (Path e : entries) {
      if (Files.isDirectory(e)) {
        Path jar = dir.resolve("dir-" + n++ + ".jar");
        pack(e, jar);
        out.add(jar.toString());
      } else if (Files.isRegularFile(e)) {
        out.add(e.toString());
      }
    }
    return String.join(java.io.File.pathSeparator, out);
  }

  private static void pack(Path from, Path jar) throws IOException {
    Path tmp = jar.resolveSibling(jar.getFileName() + ".tmp");
    try (OutputStream file = Files.newOutputStream(tmp);
        JarOutputStream out = new JarOutputStream(file);
        Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        out.putNextEntry(new JarEntry(from.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, out);
        out.closeEntry();
      }
    }
    Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Runs the training child that writes the archive; true if it did. */
  private static boolean train(String classPath, Path archive, Path log)
      throws IOException, InterruptedException {
    List<String> cmd = ChildJvm.baseCommand("512m");
    cmd.add("-XX:ArchiveClassesAtExit=" + archive);
    cmd.add("-Xlog:cds=off");
    cmd.add("-Xlog:cds+dynamic=off");
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(ChildJvmTraining.class.getName());
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(TRAINING_TIMEOUT_S, TimeUnit.SECONDS)) {
        return false;
      }
      return p.exitValue() == 0 && Files.isRegularFile(archive) && Files.size(archive) > 0;
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
  }

  /**
   * A digest of the Java home, the class path and the size and modification time of every file on
   * it (directories walked): a rebuilt class or jar gives a new key, and so a new archive.
   */
  private static String key(List<Path> entries) throws IOException {
    MessageDigest d;
    try {
      d = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    update(d, System.getProperty("java.home"));
    for (Path e : entries) {
      update(d, e.toString());
      if (Files.isDirectory(e)) {
        try (Stream<Path> files = Files.walk(e)) {
          for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
            update(d, e.relativize(f) + " " + stamp(f));
          }
        }
      } else if (Files.isRegularFile(e)) {
        update(d, stamp(e));
      }
    }
    return HexFormat.of().formatHex(d.digest(), 0, 8);
  }

  private static String stamp(Path f) {
    try {
      return Files.size(f) + " " + Files.getLastModifiedTime(f).toMillis();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void update(MessageDigest d, String s) {
    d.update(s.getBytes(StandardCharsets.UTF_8));
    d.update((byte) 0);
  }
}
