package io.vcorfu.logunit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.logunit.CorruptSegmentException;
import io.vcorfu.logunit.StorageMode;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.StreamId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record that names payload bytes its segment files do not hold (with a valid checksum, so not a
 * torn write) is damage: an index file holding one is not used (its segment is scanned instead),
 * and a segment holding one is corrupt. Before, such a record was indexed, and a read of it
 * allocated as many bytes as it claimed (up to 2 GiB) before finding the file too short.
 */
class PayloadBoundsTest {
  private static final StreamId LOG = new StreamId(0, 0);
  private static final byte[] PAYLOAD = "payload".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  private static SegmentRecord entry(long address) {
    return SegmentRecord.entry((byte) 0, address, 7, new long[] {0, 0, address}, PAYLOAD);
  }

  private static byte[] index(int segment, long segmentLength, SegmentRecord... ops) {
    IndexFile file = new IndexFile();
    for (SegmentRecord op : ops) {
      file.add(op);
    }
    return file.finish(segment, segmentLength);
  }

  private StorageEngine open() throws IOException {
    return StorageEngine.open(
        StorageOptions.builder()
            .mode(StorageMode.DURABLE)
            .directory(dir)
            .compactBelow(0)
            .directorySync(d -> {})
            .build());
  }

  @Test
  void anIndexEntryPastItsSegmentMakesTheIndexDamaged() {
    byte[] frame = RecordCodec.frame(entry(0));
    long at = frame.length - PAYLOAD.length;
    List<SegmentRecord> replayed = new ArrayList<>();

    SegmentRecord inside = SegmentRecord.entryAt((byte) 0, 0, 7, new long[] {0, 0, 0}, at, 7);
    assertThat(IndexFile.replay(index(1, frame.length, inside), 1, frame.length, replayed::add))
        .isTrue();

    replayed.clear();
    SegmentRecord past = SegmentRecord.entryAt((byte) 0, 0, 7, new long[] {0, 0, 0}, 574, 1696);
    assertThat(IndexFile.replay(index(1, frame.length, past), 1, frame.length, replayed::add))
        .isFalse();
    SegmentRecord huge =
        SegmentRecord.entryAt((byte) 0, 0, 7, new long[] {0, 0, 0}, at, Integer.MAX_VALUE);
    assertThat(IndexFile.replay(index(1, frame.length, huge), 1, frame.length, replayed::add))
        .isFalse();
    assertThat(replayed).isEmpty();
  }

  @Test
  void aStoreWhoseIndexNamesBytesPastItsSegmentScansTheSegment() throws IOException {
    byte[] sealed = RecordCodec.frame(entry(0));
    Files.write(SegmentFiles.segmentPath(dir, 1), sealed);
    SegmentRecord huge =
        SegmentRecord.entryAt((byte) 0, 0, 7, new long[] {0, 0, 0}, 0, Integer.MAX_VALUE);
    Files.write(SegmentFiles.indexPath(dir, 1), index(1, sealed.length, huge));
    Files.write(SegmentFiles.segmentPath(dir, 2), RecordCodec.frame(entry(1)));

    try (StorageEngine engine = open()) {
      assertThat(engine.recoveryStats().segmentsFromIndex()).isZero();
      IndexedRecord r = engine.lookup(LOG, 0);
      assertThat(r.len()).isEqualTo(PAYLOAD.length);
      assertThat(engine.load(r)).isEqualTo(PAYLOAD);
    }
  }

  @Test
  void aSharedRecordNamingBytesPastItselfIsCorruption() throws IOException {
    byte[] first = RecordCodec.frame(entry(0));
    long payloadAt = first.length - PAYLOAD.length;
    SegmentRecord shared =
        SegmentRecord.shared(
            (byte) 0, 1, 7, new long[] {0, 0, 1}, SegmentPosition.of(1, payloadAt), 1 << 30);
    byte[] second = RecordCodec.frame(shared);
    byte[] segment = new byte[first.length + second.length];
    System.arraycopy(first, 0, segment, 0, first.length);
    System.arraycopy(second, 0, segment, first.length, second.length);
    Files.write(SegmentFiles.segmentPath(dir, 1), segment);

    assertThatThrownBy(this::open)
        .isInstanceOf(CorruptSegmentException.class)
        .hasMessageContaining("at byte offset " + first.length)
        .hasMessageContaining("payload bytes that its segment files do not hold");
  }

  @Test
  void anIndexWhoseSharedRecordNamesBytesPastAnEarlierSegmentIsNotUsed() throws IOException {
    byte[] one = RecordCodec.frame(entry(0));
    long payloadAt = SegmentPosition.of(1, one.length - PAYLOAD.length);
    Files.write(SegmentFiles.segmentPath(dir, 1), one);
    byte[] two =
        RecordCodec.frame(
            SegmentRecord.shared((byte) 0, 1, 7, new long[] {0, 0, 1}, payloadAt, PAYLOAD.length));
    Files.write(SegmentFiles.segmentPath(dir, 2), two);
    SegmentRecord past =
        SegmentRecord.shared((byte) 0, 1, 7, new long[] {0, 0, 1}, payloadAt, 1 << 20);
    Files.write(SegmentFiles.indexPath(dir, 2), index(2, two.length, past));
    Files.write(SegmentFiles.segmentPath(dir, 3), RecordCodec.frame(entry(2)));

    try (StorageEngine engine = open()) {
      assertThat(engine.recoveryStats().segmentsFromIndex()).isZero();
      IndexedRecord r = engine.lookup(LOG, 1);
      assertThat(r.len()).isEqualTo(PAYLOAD.length);
      assertThat(engine.load(r)).isEqualTo(PAYLOAD);
    }
  }
}
