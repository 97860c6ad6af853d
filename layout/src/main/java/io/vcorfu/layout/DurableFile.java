package io.vcorfu.layout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a small file so that a crash or power loss at any moment leaves either its old or its
 * new content, and the new content is durable once {@link #replace} returns: the content is written
 * to a temporary sibling and forced, renamed over the file atomically, and the directory forced.
 * Used for every small record a node keeps (its layout, its sealed epoch, its read-lease marker).
 */
public final class DurableFile {
  private DurableFile() {}

  /**
   * Replaces {@code file}'s content with {@code content}, durably.
   *
   * @throws java.nio.file.AtomicMoveNotSupportedException if the file system cannot rename
   *     atomically (the record would not survive a crash there)
   */
  public static void replace(Path file, byte[] content) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.wrap(content);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir =
        FileChannel.open(file.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    }
  }
}
