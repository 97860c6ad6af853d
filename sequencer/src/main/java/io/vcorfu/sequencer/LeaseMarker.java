package io.vcorfu.sequencer;

import io.vcorfu.layout.DurableFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * A file recording the wall-clock time (milliseconds since the epoch) until which read leases this
 * sequencer granted may still run, so that after a restart it waits them out before revealing any
 * token (see {@link ReadLeases#serving}).
 *
 * <p>Written ahead of the grants it covers, with some slack ({@link #SLACK_MILLIS}) so that it is
 * rewritten at most about once per slack period while leases are in use: write to a temporary file,
 * force it, rename it over the marker, force the directory. A missing file means no lease was ever
 * granted; an unreadable one is refused with an error naming the file, since guessing could break
 * the leases' guarantee. An {@link #inMemory} marker has no file. Thread-safe.
 */
public final class LeaseMarker {
  /** How far beyond the grant being covered the marker is written. */
  public static final long SLACK_MILLIS = 2_000;

  private final Path file;
  private final LongConsumer recorder;
  private long recordedUntil;

  public LeaseMarker(Path file) {
    this.file = file;
    this.recorder = null;
    this.recordedUntil = read(file);
  }

  private LeaseMarker(long untilMillis, LongConsumer recorder) {
    this.file = null;
    this.recorder = recorder;
    this.recordedUntil = untilMillis;
  }

  /**
   * A marker recorded elsewhere: it starts at {@code untilMillis} (what the record says earlier
   * sequencers may have granted), and before a grant that reaches past what it has recorded it
   * calls {@code recorder} with the new end, which must make the record durable (or throw, failing
   * the grant). A cluster's sequencer records in ZooKeeper that leases were granted, so that the
   * next sequencer knows to wait them out.
   */
  public static LeaseMarker recordedBy(long untilMillis, LongConsumer recorder) {
    return new LeaseMarker(untilMillis, java.util.Objects.requireNonNull(recorder, "recorder"));
  }

  /**
   * A marker kept only in memory, for a sequencer without a data directory whose leases can outlive
   * it (its replicas, and so its clients' leased memories, live on other nodes): it cannot know
   * what an earlier run granted, so it starts at {@code untilMillis}, the latest end any such lease
   * can have, and records later grants in memory only.
   */
  public static LeaseMarker inMemory(long untilMillis) {
    return new LeaseMarker(untilMillis, null);
  }

  /** The recorded end, or 0 when no lease was ever granted. */
  public synchronized long recordedUntilMillis() {
    return recordedUntil;
  }

  /** Makes sure the marker reaches at least {@code untilMillis}, writing it (durably) if not. */
  public synchronized void cover(long untilMillis) {
    if (untilMillis <= recordedUntil) {
      return;
    }
    if (recorder != null) {
      long value = untilMillis + SLACK_MILLIS;
      recorder.accept(value);
      recordedUntil = value;
      return;
    }
    if (file == null) {
      recordedUntil = untilMillis;
      return;
    }
    long value = untilMillis + SLACK_MILLIS;
    try {
      DurableFile.replace(file, (value + "\n").getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record read leases in " + file, e);
    }
    recordedUntil = value;
  }

  private static long read(Path file) {
    if (!Files.exists(file)) {
      return 0;
    }
    try {
      String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
      return Long.parseLong(text);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the read-lease marker " + file, e);
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          "the read-lease marker "
              + file
              + " is corrupt (expected a number of milliseconds since the epoch); if no client can"
              + " still hold a read lease from this sequencer, delete the file",
          e);
    }
  }
}
