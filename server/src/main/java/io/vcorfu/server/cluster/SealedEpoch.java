package io.vcorfu.server.cluster;

import io.vcorfu.layout.DurableFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The highest epoch a cluster node has been sealed at, kept in one file of its data directory (or
 * only in memory for a node without one).
 *
 * <p>Invariant: {@link #raise} returns only once the new epoch is durable (the file is written to a
 * temporary sibling, forced, renamed over the old one, and the directory forced), so a node that
 * answered a seal still refuses the older epochs after any crash and restart. The value never goes
 * down. Thread-safe.
 */
public final class SealedEpoch {
  private final Path file;
  private long epoch;

  private SealedEpoch(Path file, long epoch) {
    this.file = file;
    this.epoch = epoch;
  }

  /** The epoch recorded in {@code file} (0 when it does not exist). */
  public static SealedEpoch open(Path file) {
    if (!Files.exists(file)) {
      return new SealedEpoch(file, 0);
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII).trim();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the sealed epoch in " + file, e);
    }
    try {
      long e = Long.parseLong(text);
      if (e < 0) {
        throw new NumberFormatException("negative");
      }
      return new SealedEpoch(file, e);
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          "the sealed epoch in "
              + file
              + " is corrupt (expected a non-negative number, found '"
              + text
              + "'); the node cannot know which epochs it promised to refuse",
          e);
    }
  }

  /** A record kept in memory only. */
  public static SealedEpoch inMemory() {
    return new SealedEpoch(null, 0);
  }

  public synchronized long get() {
    return epoch;
  }

  /** Raises the recorded epoch to {@code next} (no change if not higher), durably. */
  public synchronized void raise(long next) {
    if (next <= epoch) {
      return;
    }
    if (file != null) {
      write(next);
    }
    epoch = next;
  }

  private void write(long value) {
    try {
      DurableFile.replace(file, (value + "\n").getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record sealed epoch " + value + " in " + file, e);
    }
  }
}
