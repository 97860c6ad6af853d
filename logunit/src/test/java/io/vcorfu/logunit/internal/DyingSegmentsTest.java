package io.vcorfu.logunit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.logunit.StorageMode;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.StreamId;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Background compaction leaves a segment that is still dying (trims keep releasing what it holds)
 * until it stops dying or the files outgrow their bound, and never loses what it holds; compaction
 * asked for takes it at once. Passes run at given instants, so the windows are exact.
 */
class DyingSegmentsTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @TempDir Path dir;

  private static final StreamId[] FIVE = new StreamId[5];

  static {
    for (int i = 0; i < FIVE.length; i++) {
      FIVE[i] = StreamId.of("dying-" + i);
    }
  }

  private static byte[] value(int i) {
    byte[] b = new byte[512];
    Arrays.fill(b, (byte) i);
    return b;
  }

  /** A store whose every sealed segment holds the five streams in equal parts. */
  private StorageEngine filled() throws Exception {
    StorageOptions options =
        StorageOptions.builder()
            .mode(StorageMode.DURABLE)
            .directory(dir)
            .segmentSize(16 << 10)
            .compactBelow(0) // no background thread: the test runs the passes
            .compactionBytesPerSecond(0)
            .build();
    StorageEngine engine = StorageEngine.open(options);
    for (int i = 0; i < 500; i++) {
      StreamId ns = FIVE[i % FIVE.length];
      long a = i / FIVE.length;
      engine.put(EntryRecords.key(ns, a), i, i, StorageEngine.COMMITTED, value(i), null);
    }
    engine.barrier().join();
    return engine;
  }

  private static void trim(StorageEngine engine, int streams) {
    for (int s = 0; s < streams; s++) {
      engine.trim(FIVE[s], 100);
    }
    engine.barrier().join();
  }

  private static void assertHoldsTheKeptStreams(StorageEngine engine, int trimmed) {
    for (int i = 0; i < 500; i++) {
      StreamId ns = FIVE[i % FIVE.length];
      IndexedRecord r = engine.lookup(ns, i / FIVE.length);
      if (i % FIVE.length < trimmed) {
        assertThat(r).as("%s %d trimmed", ns, i / FIVE.length).isNull();
      } else {
        assertThat(engine.load(ns, r)).as("%s %d", ns, i / FIVE.length).isEqualTo(value(i));
      }
    }
  }

  private static double ratio(io.vcorfu.logunit.SpaceReport space) {
    return (double) space.fileBytes() / space.liveBytes();
  }

  @Test
  void aDyingSegmentIsSparedUntilAWholeWindowPassesWithoutItsLiveBytesFalling() throws Exception {
    try (StorageEngine engine = filled()) {
      long t = 1_000 * SECOND;
      assertThat(engine.compact(0.5, t, true)).as("every segment full").isZero();
      trim(engine, 2); // three fifths live, files 1.67x live: crowded, compacted below 2/3

      assertThat(engine.compact(0.5, t + SECOND, true)).as("fell two fifths: dying").isZero();
      long window = SegmentCompactor.DYING_NANOS;
      assertThat(engine.compact(0.5, t + window + SECOND, true))
          .as("fell within the previous window: still dying")
          .isZero();
      assertThat(engine.compact(0.5, t + 2 * window + 2 * SECOND, true))
          .as("a whole window without a fall")
          .isPositive();
      assertHoldsTheKeptStreams(engine, 2);
    }
  }

  @Test
  void compactionAskedForTakesDyingSegmentsAtOnce() throws Exception {
    try (StorageEngine engine = filled()) {
      long t = 1_000 * SECOND;
      engine.compact(0.5, t, true);
      trim(engine, 2);

      assertThat(engine.compact(0.5, t + SECOND, false)).isPositive();
      assertHoldsTheKeptStreams(engine, 2);
    }
  }

  @Test
  void dyingSegmentsAreCompactedEmptiestFirstOnlyUntilTheFilesAreBackWithinTheirBound()
      throws Exception {
    try (StorageEngine engine = filled()) {
      long t = 1_000 * SECOND;
      engine.compact(0.5, t, true);
      trim(engine, 3); // two fifths live: the files take about 2.5x what they hold live
      int sealed = engine.sealedSpace().size();
      assertThat(ratio(engine.space())).isGreaterThan(SegmentCompactor.DYING_AMPLIFICATION);

      int compacted = engine.compact(0.5, t + SECOND, true);

      assertThat(compacted).isPositive().isLessThan(sealed - 1);
      // Within the bound, but for the headers of the records copied (a tenth of their bytes here).
      assertThat(ratio(engine.space())).isLessThan(SegmentCompactor.DYING_AMPLIFICATION * 1.1);
      assertHoldsTheKeptStreams(engine, 3);
    }
  }

  @Test
  void aSegmentFirstSeenAfterItsFallIsCompactedAsAnyOther() throws Exception {
    try (StorageEngine engine = filled()) {
      trim(engine, 2);

      assertThat(engine.compact(0.5, 1_000 * SECOND, true)).isPositive();
      assertHoldsTheKeptStreams(engine, 2);
    }
  }
}
