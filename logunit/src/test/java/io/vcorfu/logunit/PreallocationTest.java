package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.recordsEnd;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer zeroes the active segment ahead of its records, so that appending and forcing a record
 * changes no file metadata (the file's size stays put), and that space never reads as data: a crash
 * leaves zeroes after the last record, which start-up cuts without calling them a torn write, and a
 * sealed or closed segment ends at its last record.
 */
class PreallocationTest {
  private static final Path FIRST = Path.of("segment-000001.log");

  @TempDir Path dir;

  private StorageOptions durable(long segmentSize) {
    return StorageOptions.builder()
        .mode(StorageMode.DURABLE)
        .directory(dir)
        .fsyncPolicy(FsyncPolicy.ALWAYS)
        .segmentSize(segmentSize)
        .build();
  }

  private static LogWriteRequest write(long address) {
    return LogWriteRequest.newBuilder()
        .setEntry(data(address, "entry-" + address + "-" + "p".repeat(200)))
        .setCommit(true)
        .build();
  }

  private static List<ReadResult> read(LogReplica r, long from, long to) {
    return get(r.read(LogReadRequest.newBuilder().setFrom(from).setTo(to).build()))
        .getResultsList();
  }

  private static boolean zeroFrom(byte[] file, long from) {
    for (int i = (int) from; i < file.length; i++) {
      if (file[i] != 0) {
        return false;
      }
    }
    return true;
  }

  @Test
  void appendsInsideTheZeroedSpaceLeaveTheFileSizeUnchanged() throws IOException {
    Path segment = dir.resolve(FIRST);
    try (LogReplica r = LogReplica.open(durable(16 << 20))) {
      get(r.write(write(0)));
      long end = recordsEnd(Files.readAllBytes(segment));
      // The writer zeroes after it has answered the batch.
      Awaitility.await("zeroes ahead of the first record")
          .atMost(Duration.ofSeconds(10))
          .until(() -> Files.size(segment) > end + (256 << 10));
      long size = Files.size(segment);
      for (int a = 1; a < 200; a++) {
        get(r.write(write(a)));
        assertThat(Files.size(segment)).as("size after record %d", a).isEqualTo(size);
      }
      byte[] file = Files.readAllBytes(segment);
      assertThat(recordsEnd(file)).isGreaterThan(end);
      assertThat(zeroFrom(file, recordsEnd(file))).as("only zeroes after the records").isTrue();
    }
    byte[] closed = Files.readAllBytes(segment);
    assertThat(recordsEnd(closed))
        .as("a closed segment ends at its last record")
        .isEqualTo(closed.length);
  }

  @Test
  void aCrashLeavesZeroesThatStartUpCutsWithoutCallingThemATornWrite() throws IOException {
    Path segment = dir.resolve(FIRST);
    byte[] crashed;
    try (LogReplica r = LogReplica.open(durable(16 << 20))) {
      for (int a = 0; a < 50; a++) {
        get(r.write(write(a)));
      }
      // Every write was forced before it was answered: the file as a crash would leave it.
      crashed = Files.readAllBytes(segment);
    }
    long end = recordsEnd(crashed);
    assertThat(crashed.length).isGreaterThan((int) end);
    Files.write(segment, crashed);
    try (LogReplica r = LogReplica.open(durable(16 << 20))) {
      assertThat(r.recoveryStats().tornBytesTruncated()).isZero();
      assertThat(Files.size(segment)).isEqualTo(end);
      assertThat(read(r, 0, 49)).allMatch(x -> x.getStatus() == Status.COMMITTED);
      get(r.write(write(50)));
    }
    try (LogReplica r = LogReplica.open(durable(16 << 20))) {
      assertThat(read(r, 0, 50)).allMatch(x -> x.getStatus() == Status.COMMITTED);
    }
  }

  @Test
  void garbageAfterTheZeroesIsATornWriteOfItsOwnLength() throws IOException {
    Path segment = dir.resolve(FIRST);
    byte[] crashed;
    try (LogReplica r = LogReplica.open(durable(16 << 20))) {
      for (int a = 0; a < 5; a++) {
        get(r.write(write(a)));
      }
      crashed = Files.readAllBytes(segment);
    }
    long end = recordsEnd(crashed);
    // Bytes that are not zero past the records: cut, and counted from the records' end.
    crashed[crashed.length - 100] = 7;
    Files.write(segment, crashed);
    try (LogReplica r = LogReplica.open(durable(16 << 20))) {
      assertThat(r.recoveryStats().tornBytesTruncated()).isEqualTo(crashed.length - 99 - end);
      assertThat(Files.size(segment)).isEqualTo(end);
      assertThat(read(r, 0, 4)).allMatch(x -> x.getStatus() == Status.COMMITTED);
    }
  }

  @Test
  void sealedSegmentsEndAtTheirLastRecord() throws IOException {
    try (LogReplica r = LogReplica.open(durable(64 << 10))) {
      for (int a = 0; a < 1_000; a++) {
        get(r.write(write(a)));
      }
      List<Path> segments = segments();
      assertThat(segments).hasSizeGreaterThan(3);
      for (Path sealed : segments.subList(0, segments.size() - 1)) {
        byte[] file = Files.readAllBytes(sealed);
        assertThat(recordsEnd(file)).as("%s", sealed).isEqualTo(file.length);
      }
      assertThat(Files.size(segments.get(segments.size() - 1)))
          .as("no zeroes past the segment size")
          .isLessThanOrEqualTo(64 << 10);
    }
    try (LogReplica r = LogReplica.open(durable(64 << 10))) {
      assertThat(r.recoveryStats().tornBytesTruncated()).isZero();
      assertThat(read(r, 0, 999)).allMatch(x -> x.getStatus() == Status.COMMITTED);
    }
  }

  private List<Path> segments() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
    }
  }
}
