package io.vcorfu.server.access;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A single node's grants in a file ({@code vcorfu server --acl FILE}), read again when it changes
 * (see {@link FollowedFile}: within {@link FollowedFile#RECHECK_NANOS}; a change that cannot be
 * used keeps the grants before it). {@code vcorfu acl --file} writes the file whole by a rename, so
 * a node never reads it half written. Thread-safe.
 */
public final class AclFile implements Supplier<AccessList> {
  private final FollowedFile<AccessList> followed;

  private AclFile(FollowedFile<AccessList> followed) {
    this.followed = followed;
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
      return new AclFile(new FollowedFile<>(file, "grants", AclFile::read));
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
    FollowedFile.replace(file, grants.toJson());
  }

  @Override
  public AccessList get() {
    return followed.get();
  }
}
