package io.vcorfu.server.access;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file a node reads at start and again when it changes: at most every {@link #RECHECK_NANOS} a
 * call compares the file's modification time, size and inode with the last reading's. A reading
 * that fails (the file half written, not valid, gone) keeps the value before it and logs why once.
 * The commands that change such files write them whole by a rename ({@link #replace}), so a node
 * never reads one half written. Thread-safe.
 *
 * @param <T> what the file holds
 */
final class FollowedFile<T> implements Supplier<T> {
  private static final Logger LOG = LoggerFactory.getLogger(FollowedFile.class);

  static final long RECHECK_NANOS = 200_000_000L;

  private final Path file;
  private final String what;
  private final Function<Path, T> reader;
  private volatile T current;
  private volatile String stamp;
  private volatile String failedStamp;
  private volatile long checkedAt;

  /**
   * The value of {@code file} as {@code reader} reads it, followed from now on.
   *
   * @param what what the file holds, for log lines ("grants", "bearer tokens")
   * @throws IllegalArgumentException when the first reading fails (from {@code reader}, or naming
   *     the file when its attributes cannot be read)
   */
  FollowedFile(Path file, String what, Function<Path, T> reader) {
    this.file = file;
    this.what = what;
    this.reader = reader;
    this.stamp = stampOf(file);
    this.current = reader.apply(file);
    this.checkedAt = System.nanoTime();
  }

  @Override
  public T get() {
    long now = System.nanoTime();
    if (now - checkedAt < RECHECK_NANOS) {
      return current;
    }
    checkedAt = now;
    String s;
    try {
      s = stampOf(file);
    } catch (IllegalArgumentException e) {
      s = "missing";
    }
    if (s.equals(stamp) || s.equals(failedStamp)) {
      return current;
    }
    synchronized (this) {
      try {
        if (s.equals("missing")) {
          throw new IllegalArgumentException("the file is gone");
        }
        current = reader.apply(file);
        stamp = s;
        LOG.info("{} read again from {}", what, file);
      } catch (RuntimeException e) {
        failedStamp = s;
        LOG.warn(
            "{} file {} changed but cannot be used, keeping the {} before: {}",
            what,
            file,
            what,
            e.getMessage());
      }
    }
    return current;
  }

  /** Replaces {@code file} with {@code bytes}, whole (a rename over it), readable by its owner. */
  static void replace(Path file, byte[] bytes) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".new");
    try {
      Files.write(tmp, bytes);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static String stampOf(Path file) {
    try {
      FileTime t = Files.getLastModifiedTime(file);
      return t.toMillis()
          + "/"
          + Files.size(file)
          + "/"
          + Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS);
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      try {
        return Files.getLastModifiedTime(file).toMillis() + "/" + Files.size(file);
      } catch (IOException ex) {
        throw new IllegalArgumentException(ex.toString());
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(e.toString());
    }
  }
}
