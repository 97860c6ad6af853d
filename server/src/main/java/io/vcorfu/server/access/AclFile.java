package io.vcorfu.server.access;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single node's grants in a file ({@code vcorfu server --acl FILE}), read again when it changes:
 * at most every {@link #RECHECK_NANOS} a request compares the file's modification time and size
 * with the last reading's. A reading that fails (the file half written, not valid) keeps the grants
 * before it and logs why once. {@code vcorfu acl --file} writes the file whole by a rename, so a
 * node never reads it half written. Thread-safe.
 */
public final class AclFile implements Supplier<AccessList> {
  private static final Logger LOG = LoggerFactory.getLogger(AclFile.class);

  static final long RECHECK_NANOS = 200_000_000L;

  private final Path file;
  private volatile AccessList current;
  private volatile String stamp;
  private volatile String failedStamp;
  private volatile long checkedAt;

  private AclFile(Path file, AccessList first, String stamp) {
    this.file = file;
    this.current = first;
    this.stamp = stamp;
    this.checkedAt = System.nanoTime();
  }

  /**
   * The grants of {@code file}, followed from now on.
   *
   * @throws IllegalArgumentException when the file is missing or not valid, saying what to do
   */
  public static AclFile open(Path file) {
    Objects.requireNonNull(file, "file");
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          "the grants file "
              + file
              + " does not exist; create it with `vcorfu acl grant --file "
              + file
              + " --principal SUBJECT --permissions ...`");
    }
    try {
      String s = stampOf(file);
      return new AclFile(file, read(file), s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the grants file " + file + ": " + e.getMessage());
    }
  }

  /** The grants in {@code file}; none when it does not exist. */
  public static AccessList read(Path file) {
    try {
      return AccessList.fromJson(Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      return AccessList.EMPTY;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the grants file " + file, e);
    }
  }

  /** Replaces {@code file} with {@code grants}, whole (a rename over it). */
  public static void write(Path file, AccessList grants) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".new");
    try {
      Files.write(tmp, grants.toJson());
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  @Override
  public AccessList get() {
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
        AccessList next = read(file);
        current = next;
        stamp = s;
        LOG.info("grants read again from {}: {} grants", file, next.grants().size());
      } catch (RuntimeException e) {
        failedStamp = s;
        LOG.warn(
            "grants file {} changed but cannot be used, keeping the grants before: {}",
            file,
            e.getMessage());
      }
    }
    return current;
  }

  private static String stampOf(Path file) {
    try {
      FileTime t = Files.getLastModifiedTime(file);
      return t.toMillis()
          + "/"
          + Files.size(file)
          + "/"
          + Files.getAttribute(file, "unix:ino", java.nio.file.LinkOption.NOFOLLOW_LINKS);
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
