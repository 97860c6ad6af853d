package io.vcorfu.logunit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.logunit.StorageMode;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.StreamId;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read planned before compaction moved its record (the record found, then its segment deleted
 * before the bytes were loaded) loads the bytes where the record is now, never reports it gone.
 */
class MovedRecordReadTest {
  private static final StreamId KEPT = StreamId.of("kept");
  private static final StreamId DROPPED = StreamId.of("dropped");
  private static final StreamId FILLER = StreamId.of("filler");

  @TempDir Path dir;

  private static byte[] value(int i) {
    byte[] b = new byte[512];
    Arrays.fill(b, (byte) i);
    return b;
  }

  @Test
  void aReadPlannedInASegmentCompactionDeletedLoadsTheRecordWhereItMoved() throws Exception {
    StorageOptions options =
        StorageOptions.builder()
            .mode(StorageMode.DURABLE)
            .directory(dir)
            .segmentSize(16 << 10)
            .compactBelow(0)
            .build();
    try (StorageEngine engine = StorageEngine.open(options)) {
      for (int i = 0; i < 200; i++) {
        StreamId ns = i % 2 == 0 ? KEPT : DROPPED;
        engine.put(EntryRecords.key(ns, i / 2), i, i, StorageEngine.COMMITTED, value(i), null);
      }
      engine.barrier().join();
      IndexedRecord planned = engine.lookup(KEPT, 3); // in the first segment
      engine.trim(DROPPED, 100);
      engine.barrier().join();

      assertThat(engine.compact(0.9, System.nanoTime(), false)).isPositive();

      assertThat(engine.load(planned)).as("its segment is gone").isNull();
      assertThat(engine.load(KEPT, planned)).isEqualTo(value(6));
      assertThat(engine.lookup(KEPT, 3).pos()).isNotEqualTo(planned.pos());

      // More than a segment of other records after the moved ones, so that every moved record
      // lies in a sealed segment, whichever order the compaction took the segments in.
      for (int i = 0; i < 40; i++) {
        engine.put(
            EntryRecords.key(FILLER, i), 200 + i, i, StorageEngine.COMMITTED, value(i), null);
      }
      engine.barrier().join();
      IndexedRecord trimmed = engine.lookup(KEPT, 4);
      engine.trim(KEPT, 50);
      engine.barrier().join();
      assertThat(engine.compact(1.0, System.nanoTime(), false)).isPositive();
      assertThat(engine.load(KEPT, trimmed)).as("trimmed meanwhile").isNull();
    }
  }
}
