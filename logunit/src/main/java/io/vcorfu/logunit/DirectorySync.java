package io.vcorfu.logunit;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Makes the entries of a directory durable: after {@link #force} returns, a file created, renamed
 * or deleted in it before the call stays so across a power loss. Forcing a file's data does not do
 * this on Linux; the directory itself must be forced.
 *
 * <p>A durable replica calls this on its data directory after creating a segment (before it
 * acknowledges any write in it), after renaming an index file into place, and after deleting
 * segments. Replaceable so that tests can observe when it happens.
 */
@FunctionalInterface
public interface DirectorySync {
  /** Forces the directory's entries to stable storage ({@code fsync} of the directory). */
  DirectorySync FSYNC =
      directory -> {
        try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
          ch.force(true);
        }
      };

  void force(Path directory) throws IOException;
}
