package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.failure;
import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogFillRequest;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogTailRequest;
import io.vcorfu.protocol.proto.LogTrimRequest;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import io.vcorfu.protocol.proto.StreamFillRequest;
import io.vcorfu.protocol.proto.StreamReadRequest;
import io.vcorfu.protocol.proto.StreamTailRequest;
import io.vcorfu.protocol.proto.StreamTrimRequest;
import io.vcorfu.protocol.proto.StreamWriteRequest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Durable mode: what survives a close or a crash, and what start-up refuses. */
class DurableRecoveryTest {
  @TempDir Path dir;

  private StorageOptions small() {
    return StorageOptions.builder()
        .mode(StorageMode.DURABLE)
        .directory(dir)
        .segmentSize(4096)
        .fsyncPolicy(FsyncPolicy.NONE)
        .build();
  }

  private static LogWriteRequest write(long address, boolean commit) {
    return LogWriteRequest.newBuilder()
        .setEntry(data(address, "entry-" + address + "-" + "p".repeat(100)))
        .setCommit(commit)
        .build();
  }

  private static void writeRange(LogReplica r, long from, long to) {
    for (long a = from; a < to; a++) {
      get(r.write(write(a, true)));
    }
  }

  private static List<ReadResult> read(LogReplica r, long from, long to) {
    return get(r.read(LogReadRequest.newBuilder().setFrom(from).setTo(to).build()))
        .getResultsList();
  }

  private List<Path> files(String suffix) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
    }
  }

  @Test
  void reopenRestoresEntriesCommitBitsHolesAndTrimMark() throws IOException {
    try (LogReplica r = LogReplica.open(small())) {
      writeRange(r, 0, 60);
      get(r.write(write(60, false)));
      get(r.fill(LogFillRequest.newBuilder().setAddress(61).setCommit(true).build()));
      get(r.fill(LogFillRequest.newBuilder().setAddress(62).build()));
      get(r.write(write(63, false)));
      get(
          r.fill(
              LogFillRequest.newBuilder().setAddress(63).setAbort(true).setCommit(true).build()));
      get(r.trim(LogTrimRequest.newBuilder().setBefore(10).build()));
    }
    try (LogReplica r = LogReplica.open(small())) {
      List<ReadResult> res = read(r, 9, 64);
      assertThat(res.get(0).getStatus()).isEqualTo(Status.TRIMMED);
      assertThat(res.get(1).getStatus()).isEqualTo(Status.COMMITTED);
      assertThat(res.get(1).getEntry()).isEqualTo(write(10, true).getEntry());
      assertThat(res.get(51).getStatus()).isEqualTo(Status.UNCOMMITTED);
      assertThat(res.get(52).getStatus()).isEqualTo(Status.COMMITTED);
      assertThat(res.get(52).getEntry().getKind()).isEqualTo(EntryKind.HOLE);
      assertThat(res.get(53).getStatus()).isEqualTo(Status.UNCOMMITTED);
      assertThat(res.get(53).getEntry().getKind()).isEqualTo(EntryKind.HOLE);
      assertThat(res.get(54).getStatus()).isEqualTo(Status.COMMITTED);
      assertThat(res.get(54).getEntry().getKind()).isEqualTo(EntryKind.HOLE);
      assertThat(res.get(55).getStatus()).isEqualTo(Status.EMPTY);
      var tail = get(r.tail(LogTailRequest.getDefaultInstance()));
      assertThat(tail.getTail()).isEqualTo(63);
      assertThat(tail.getTrimMark()).isEqualTo(10);
    }
  }

  /**
   * Backpointers are no longer issued or stored, but an entry written by an older version with one
   * in its slot is accepted, survives a restart and reads back unchanged.
   */
  @Test
  void entryCarryingABackpointerFromAnOlderVersionStillLoads() throws IOException {
    StreamId a = StreamId.of("a");
    LogEntryMsg old = data(7, "old", slot(a, 0).toBuilder().setBackpointer(3).build());
    try (StreamReplica r = StreamReplica.open(small())) {
      get(
          r.write(
              StreamWriteRequest.newBuilder()
                  .setEntry(old)
                  .addAllSlots(old.getSlotsList())
                  .setCommit(true)
                  .build()));
    }
    try (StreamReplica r = StreamReplica.open(small())) {
      ReadResult read =
          get(r.read(
                  StreamReadRequest.newBuilder().setStream(a.toMsg()).setFrom(0).setTo(0).build()))
              .getResults(0);
      assertThat(read.getStatus()).isEqualTo(Status.COMMITTED);
      assertThat(read.getEntry()).isEqualTo(old);
      assertThat(read.getEntry().getSlots(0).getBackpointer()).isEqualTo(3);
    }
  }

  @Test
  void streamReplicaReopenRestoresSlotsTailsAndTrim() throws IOException {
    StreamId a = StreamId.of("a");
    StreamId b = StreamId.of("b");
    try (StreamReplica r = StreamReplica.open(small())) {
      for (int i = 0; i < 40; i++) {
        LogEntryMsg e = data(100 + i, "x".repeat(80), slot(a, i), slot(b, i));
        get(
            r.write(
                StreamWriteRequest.newBuilder()
                    .setEntry(e)
                    .addAllSlots(e.getSlotsList())
                    .setCommit(i % 2 == 0)
                    .build()));
      }
      get(
          r.fill(
              StreamFillRequest.newBuilder()
                  .setStream(b.toMsg())
                  .setStreamAddress(40)
                  .setCommit(true)
                  .build()));
      get(r.trim(StreamTrimRequest.newBuilder().setStream(a.toMsg()).setBefore(30).build()));
    }
    try (StreamReplica r = StreamReplica.open(small())) {
      var ra =
          get(r.read(
                  StreamReadRequest.newBuilder()
                      .setStream(a.toMsg())
                      .setFrom(29)
                      .setTo(31)
                      .build()))
              .getResultsList();
      assertThat(ra)
          .extracting(ReadResult::getStatus)
          .containsExactly(Status.TRIMMED, Status.COMMITTED, Status.UNCOMMITTED);
      assertThat(ra.get(1).getEntry().getGlobalAddress()).isEqualTo(130);
      var tails =
          get(
              r.tail(
                  StreamTailRequest.newBuilder()
                      .addStreams(a.toMsg())
                      .addStreams(b.toMsg())
                      .build()));
      assertThat(tails.getMaxGlobal()).isEqualTo(139);
      assertThat(tails.getTails(0).getTail()).isEqualTo(39);
      assertThat(tails.getTails(0).getLastGlobal()).isEqualTo(139);
      assertThat(tails.getTails(0).getTrimMark()).isEqualTo(30);
      assertThat(tails.getTails(1).getTail()).isEqualTo(40);
      // b's last slot is a hole: its last DATA entry is the one at stream address 39.
      assertThat(tails.getTails(1).getLastGlobal()).isEqualTo(139);
    }
  }

  @Test
  void restartRestoresSealedSegmentsFromIndexFiles() throws IOException {
    try (LogReplica r = LogReplica.open(small())) {
      writeRange(r, 0, 200);
    }
    int sealed = files(".log").size() - 1;
    assertThat(sealed).isGreaterThan(3);
    assertThat(files(".idx")).hasSize(sealed);
    try (LogReplica r = LogReplica.open(small())) {
      assertThat(r.recoveryStats().segmentsFromIndex()).isEqualTo(sealed);
      assertThat(r.recoveryStats().segmentsScanned()).isEqualTo(1);
      assertThat(read(r, 0, 199)).allMatch(x -> x.getStatus() == Status.COMMITTED);
      assertThat(read(r, 0, 199).get(77).getEntry()).isEqualTo(write(77, true).getEntry());
    }
  }

  @Test
  void missingOrDamagedIndexFileFallsBackToScanning() throws IOException {
    try (LogReplica r = LogReplica.open(small())) {
      writeRange(r, 0, 200);
    }
    List<Path> idx = files(".idx");
    int sealed = idx.size();
    Files.delete(idx.get(0));
    flipByte(idx.get(1), 30);
    try (LogReplica r = LogReplica.open(small())) {
      assertThat(r.recoveryStats().segmentsFromIndex()).isEqualTo(sealed - 2);
      assertThat(r.recoveryStats().segmentsScanned()).isEqualTo(3);
      assertThat(read(r, 0, 199)).allMatch(x -> x.getStatus() == Status.COMMITTED);
    }
  }

  @Test
  void tornTailIsTruncatedAndLaterWritesSurvive() throws IOException {
    long size;
    try (LogReplica r = LogReplica.open(small())) {
      writeRange(r, 0, 5);
      // Where the fifth record ends (the close then adds a record of what was forced).
      size = Files.size(files(".log").get(files(".log").size() - 1));
    }
    Path last = files(".log").get(files(".log").size() - 1);
    try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
      f.setLength(size - 7);
    }
    try (LogReplica r = LogReplica.open(small())) {
      assertThat(r.recoveryStats().tornBytesTruncated()).isPositive();
      List<ReadResult> res = read(r, 0, 4);
      assertThat(res.subList(0, 4)).allMatch(x -> x.getStatus() == Status.COMMITTED);
      assertThat(res.get(4).getStatus()).isEqualTo(Status.EMPTY);
      writeRange(r, 4, 8);
    }
    try (LogReplica r = LogReplica.open(small())) {
      assertThat(r.recoveryStats().tornBytesTruncated()).isZero();
      assertThat(read(r, 0, 7)).allMatch(x -> x.getStatus() == Status.COMMITTED);
    }
  }

  @Test
  void garbageAfterLastRecordIsTruncated() throws IOException {
    try (LogReplica r = LogReplica.open(small())) {
      writeRange(r, 0, 3);
    }
    Path last = files(".log").get(0);
    long size = Files.size(last);
    Files.write(
        last,
        new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17},
        java.nio.file.StandardOpenOption.APPEND);
    try (LogReplica r = LogReplica.open(small())) {
      assertThat(r.recoveryStats().tornBytesTruncated()).isEqualTo(17);
      assertThat(Files.size(last)).isEqualTo(size);
      assertThat(read(r, 0, 2)).allMatch(x -> x.getStatus() == Status.COMMITTED);
    }
  }

  @Test
  void badChecksumInTheMiddleStopsStartUpNamingFileAndOffset() throws IOException {
    try (LogReplica r = LogReplica.open(small())) {
      writeRange(r, 0, 3);
    }
    Path last = files(".log").get(0);
    flipByte(last, 60);
    assertThatThrownBy(() -> LogReplica.open(small()))
        .isInstanceOfSatisfying(
            CorruptSegmentException.class,
            e -> {
              assertThat(e.file()).isEqualTo(last);
              assertThat(e.offset()).isZero();
              assertThat(e.getMessage()).contains(last.toString()).contains("byte offset 0");
            });
  }

  @Test
  void truncatedSealedSegmentIsCorruption() throws IOException {
    try (LogReplica r = LogReplica.open(small())) {
      writeRange(r, 0, 100);
    }
    Path first = files(".log").get(0);
    long size = Files.size(first);
    try (RandomAccessFile f = new RandomAccessFile(first.toFile(), "rw")) {
      f.setLength(size - 3);
    }
    assertThatThrownBy(() -> LogReplica.open(small()))
        .isInstanceOfSatisfying(
            CorruptSegmentException.class, e -> assertThat(e.file()).isEqualTo(first));
  }

  @Test
  void trimDeletesWholeSegmentsAndKeepsTheRest() throws IOException {
    List<Path> before;
    try (LogReplica r = LogReplica.open(small())) {
      writeRange(r, 0, 300);
      before = files(".log");
      get(r.trim(LogTrimRequest.newBuilder().setBefore(250).build()));
      List<Path> after = files(".log");
      assertThat(after.size()).isLessThan(before.size() - 5);
      assertThat(before.get(0)).doesNotExist();
      assertThat(dir.resolve(before.get(0).getFileName().toString().replace(".log", ".idx")))
          .doesNotExist();
      assertThat(read(r, 250, 299)).allMatch(x -> x.getStatus() == Status.COMMITTED);
      assertThat(read(r, 240, 249)).allMatch(x -> x.getStatus() == Status.TRIMMED);
      writeRange(r, 300, 340);
    }
    try (LogReplica r = LogReplica.open(small())) {
      assertThat(get(r.tail(LogTailRequest.getDefaultInstance())).getTrimMark()).isEqualTo(250);
      assertThat(read(r, 250, 339)).allMatch(x -> x.getStatus() == Status.COMMITTED);
      assertThat(read(r, 0, 249)).allMatch(x -> x.getStatus() == Status.TRIMMED);
      // Trimming everything written keeps the tail: it never goes back.
      get(r.trim(LogTrimRequest.newBuilder().setBefore(340).build()));
    }
    try (LogReplica r = LogReplica.open(small())) {
      assertThat(get(r.tail(LogTailRequest.getDefaultInstance())).getTail()).isEqualTo(339);
      assertThat(get(r.tail(LogTailRequest.getDefaultInstance())).getTrimMark()).isEqualTo(340);
    }
    assertThat(files(".log").size()).isLessThanOrEqualTo(2);
  }

  @Test
  void oversizeEntryWritesNothingToDisk() throws IOException {
    StorageOptions o = small().toBuilder().maxEntrySize(512).build();
    try (LogReplica r = LogReplica.open(o)) {
      failure(
          r.write(LogWriteRequest.newBuilder().setEntry(data(0, "z".repeat(600))).build()),
          TooLargeException.class);
      assertThat(Files.size(files(".log").get(0))).isZero();
    }
    try (LogReplica r = LogReplica.open(o)) {
      assertThat(read(r, 0, 0).get(0).getStatus()).isEqualTo(Status.EMPTY);
    }
  }

  private static void flipByte(Path file, long offset) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(offset);
      int b = f.read();
      f.seek(offset);
      f.write(b ^ 0xFF);
    }
  }
}
