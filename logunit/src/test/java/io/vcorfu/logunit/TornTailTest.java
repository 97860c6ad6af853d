package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A power loss can leave the unforced end of the last segment with its pages written out of order:
 * a damaged record followed by valid ones. Start-up treats damage after the last position the
 * segment durably records as forced as a torn tail, and damage before it as corruption.
 *
 * <p>The crash image is built from real files: ten records written and forced (then a clean close),
 * ten more written under a one-hour fsync interval (so nothing forces them), the file's bytes taken
 * as the operating system holds them, and one record's bytes zeroed as if its page never reached
 * the disk.
 */
class TornTailTest {
  private static final Path SEGMENT = Path.of("segment-000001.log");

  @TempDir Path dir;

  private StorageOptions forced() {
    return StorageOptions.builder()
        .mode(StorageMode.DURABLE)
        .directory(dir)
        .fsyncPolicy(FsyncPolicy.ALWAYS)
        .build();
  }

  private StorageOptions unforced() {
    return forced().toBuilder()
        .fsyncPolicy(FsyncPolicy.INTERVAL)
        .fsyncInterval(Duration.ofHours(1))
        .build();
  }

  private static LogWriteRequest write(long address) {
    return LogWriteRequest.newBuilder()
        .setEntry(data(address, "entry-" + address + "-" + "p".repeat(300)))
        .setCommit(true)
        .build();
  }

  /**
   * End offsets in the segment of records 0..19 (each with whatever follows it before the next).
   */
  private final long[] ends = new long[20];

  /** The segment as the OS held it after 10 forced and 10 unforced records. */
  private byte[] crashImage() throws IOException {
    Path segment = dir.resolve(SEGMENT);
    try (LogReplica r = LogReplica.open(forced())) {
      for (int a = 0; a < 10; a++) {
        get(r.write(write(a)));
        ends[a] = Fixtures.recordsEnd(Files.readAllBytes(segment));
      }
    }
    byte[] image;
    try (LogReplica r = LogReplica.open(unforced())) {
      for (int a = 10; a < 20; a++) {
        get(r.write(write(a)));
        ends[a] = Fixtures.recordsEnd(Files.readAllBytes(segment));
      }
      image = Files.readAllBytes(segment);
    }
    return image;
  }

  /**
   * Start of the record holding byte {@code pos}: the last record magic ("VCRG") at or before it.
   */
  private static int frameStart(byte[] image, int pos) {
    for (int i = pos; i >= 0; i--) {
      if (image[i] == 'V' && image[i + 1] == 'C' && image[i + 2] == 'R' && image[i + 3] == 'G') {
        return i;
      }
    }
    throw new AssertionError("no record starts before offset " + pos);
  }

  private List<ReadResult> read(LogReplica r) {
    return get(r.read(LogReadRequest.newBuilder().setFrom(0).setTo(19).build())).getResultsList();
  }

  @ParameterizedTest
  @ValueSource(ints = {10, 13, 18})
  void damagedRecordFollowedByValidOnesInTheUnforcedTailIsATornTail(int lost) throws IOException {
    byte[] image = crashImage();
    Arrays.fill(image, (int) ends[lost - 1], (int) ends[lost], (byte) 0);
    assertThat(ends[19]).as("valid records follow the lost one").isGreaterThan(ends[lost]);
    Files.write(dir.resolve(SEGMENT), image);
    try (LogReplica r = LogReplica.open(forced())) {
      // The damaged record and the valid ones after it; the zeroes the writer kept ahead of its
      // records are not a torn write.
      assertThat(r.recoveryStats().tornBytesTruncated()).isEqualTo(ends[19] - ends[lost - 1]);
      List<ReadResult> res = read(r);
      assertThat(res.subList(0, lost)).allMatch(x -> x.getStatus() == Status.COMMITTED);
      assertThat(res.get(lost - 1).getEntry()).isEqualTo(write(lost - 1).getEntry());
      assertThat(res.subList(lost, 20)).allMatch(x -> x.getStatus() == Status.EMPTY);
      get(r.write(write(lost)));
    }
    try (LogReplica r = LogReplica.open(forced())) {
      assertThat(r.recoveryStats().tornBytesTruncated()).isZero();
      assertThat(read(r).subList(0, lost + 1)).allMatch(x -> x.getStatus() == Status.COMMITTED);
    }
  }

  @Test
  void damageBeforeTheRecordedForcedPositionStopsStartUpNamingFileAndOffset() throws IOException {
    byte[] image = crashImage();
    int at = frameStart(image, (int) ends[4] + 40);
    assertThat(at).isGreaterThanOrEqualTo((int) ends[4]);
    image[(int) ends[4] + 40] ^= 0x5a;
    Path segment = dir.resolve(SEGMENT);
    Files.write(segment, image);
    assertThatThrownBy(() -> LogReplica.open(forced()))
        .isInstanceOfSatisfying(
            CorruptSegmentException.class,
            e -> {
              assertThat(e.file()).isEqualTo(segment);
              assertThat(e.offset()).isEqualTo(at);
              assertThat(e.getMessage()).contains(segment.toString()).contains("byte offset " + at);
            });
  }

  @Test
  void damageInTheForcedPartOfACleanlyClosedSegmentIsCorruptionEvenAtTheEnd() throws IOException {
    Path segment = dir.resolve(SEGMENT);
    try (LogReplica r = LogReplica.open(forced())) {
      for (int a = 0; a < 10; a++) {
        get(r.write(write(a)));
        ends[a] = Fixtures.recordsEnd(Files.readAllBytes(segment));
      }
    }
    // The last record, acknowledged and forced, is damaged: nothing after it but the close's
    // record of what was forced, which is enough to know this is not a torn write.
    byte[] image = Files.readAllBytes(segment);
    int at = frameStart(image, (int) ends[8] + 40);
    assertThat(at).isGreaterThanOrEqualTo((int) ends[8]);
    image[(int) ends[8] + 40] ^= 0x5a;
    Files.write(segment, image);
    assertThatThrownBy(() -> LogReplica.open(forced()))
        .isInstanceOfSatisfying(
            CorruptSegmentException.class, e -> assertThat(e.offset()).isEqualTo(at));
  }
}
