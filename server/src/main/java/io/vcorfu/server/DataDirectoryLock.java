package io.vcorfu.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;

/**
 * A node's exclusive hold on its data directory, for the node's whole life: an OS file lock on
 * {@code DIR/node.lock}, which holds the owner's process id so that a node refused the directory
 * can name it.
 *
 * <p>Safety invariant: at most one open node uses a data directory at a time, across processes and
 * within one process. Two nodes on one directory would each append to the same segments and issue
 * the same addresses, and the second would rewrite the first's layout, so a node takes this lock
 * before it reads or writes anything in the directory, and releases it only after it has closed
 * every file there. The OS drops the lock when the process dies, so a killed node never blocks its
 * restart. The lock file is never deleted (deleting it would let two nodes lock two different files
 * of the same name).
 */
final class DataDirectoryLock implements AutoCloseable {
  static final String FILE_NAME = "node.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private DataDirectoryLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code dir} (creating it if needed) and records this process's id in the lock file;
   * {@link DataDirectoryInUseException} if another node, in this process or another, holds it.
   */
  static DataDirectoryLock acquire(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    FileChannel ch;
    try {
      Files.createDirectories(dir);
      ch =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot lock data directory " + dir + ": " + e.getMessage(), e);
    }
    try {
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // another node of this process holds it
      }
      if (lock == null) {
        OptionalLong holder = holder(ch);
        ch.close();
        throw new DataDirectoryInUseException(dir, holder);
      }
      ch.truncate(0);
      ch.write(
          ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)),
          0);
      ch.force(true);
      return new DataDirectoryLock(ch, lock);
    } catch (IOException e) {
      closeQuietly(ch);
      throw new UncheckedIOException(
          "cannot lock data directory " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The process id the holder wrote, if it wrote one yet. */
  private static OptionalLong holder(FileChannel ch) {
    try {
      ByteBuffer buf = ByteBuffer.allocate(32);
      ch.read(buf, 0);
      String text = new String(buf.array(), 0, buf.position(), StandardCharsets.US_ASCII).trim();
      return text.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(text));
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // already failing; the first error is the one reported
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException ignored) {
      // closing the channel releases it too
    }
    closeQuietly(channel);
  }
}
