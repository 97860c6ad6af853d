package io.vcorfu.logunit;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A segment file holds a damaged record that is not an interrupted write at the very end of the
 * log: start-up stops rather than silently dropping acknowledged data.
 */
public final class CorruptSegmentException extends IOException {
  private final Path file;
  private final long offset;

  public CorruptSegmentException(Path file, long offset, String problem) {
    super("segment file " + file + " is corrupt at byte offset " + offset + ": " + problem);
    this.file = file;
    this.offset = offset;
  }

  /** The damaged segment file. */
  public Path file() {
    return file;
  }

  /** Byte offset of the first damaged record in {@link #file()}. */
  public long offset() {
    return offset;
  }
}
