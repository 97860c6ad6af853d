package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.failure;
import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import io.vcorfu.protocol.proto.StreamCommitRequest;
import io.vcorfu.protocol.proto.StreamFillRequest;
import io.vcorfu.protocol.proto.StreamReadRequest;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.protocol.proto.StreamTailRequest;
import io.vcorfu.protocol.proto.StreamTailResponse;
import io.vcorfu.protocol.proto.StreamTrimRequest;
import io.vcorfu.protocol.proto.StreamWriteRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Semantics of the stream replica, in memory and durable mode alike. */
class StreamReplicaTest {
  private static final StreamId A = StreamId.of("a");
  private static final StreamId B = StreamId.of("b");

  @TempDir Path dir;
  private StreamReplica replica;

  private void open(StorageMode mode) throws IOException {
    replica = StreamReplica.open(Fixtures.options(mode, dir));
  }

  @AfterEach
  void close() throws IOException {
    if (replica != null) {
      replica.close();
    }
  }

  private static StreamWriteRequest write(LogEntryMsg e, boolean commit) {
    return StreamWriteRequest.newBuilder()
        .setEntry(e)
        .addAllSlots(e.getSlotsList())
        .setCommit(commit)
        .build();
  }

  private List<ReadResult> read(StreamId s, long from, long to) {
    return get(replica.read(
            StreamReadRequest.newBuilder().setStream(s.toMsg()).setFrom(from).setTo(to).build()))
        .getResultsList();
  }

  private ReadResult fill(StreamId s, long address, boolean abort, boolean commit) {
    return get(replica.fill(
            StreamFillRequest.newBuilder()
                .setStream(s.toMsg())
                .setStreamAddress(address)
                .setAbort(abort)
                .setCommit(commit)
                .build()))
        .getResult();
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void entryWithTwoStreamsIsReadableFromBoth(StorageMode mode) throws IOException {
    open(mode);
    LogEntryMsg e = data(10, "both", slot(A, 0), slot(B, 3));
    get(replica.write(write(e, true)));
    assertThat(read(A, 0, 0).get(0).getEntry()).isEqualTo(e);
    assertThat(read(B, 3, 3).get(0).getStatus()).isEqualTo(Status.COMMITTED);
    assertThat(read(B, 2, 2).get(0).getStatus()).isEqualTo(Status.EMPTY);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void takenSlotFailsWholeWriteAndWritesNothing(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(1, "first", slot(B, 0)), true)));
    OverwrittenException e =
        failure(
            replica.write(write(data(2, "second", slot(A, 0), slot(B, 0)), true)),
            OverwrittenException.class);
    assertThat(e.stream()).isEqualTo(B);
    assertThat(e.address()).isEqualTo(0);
    assertThat(e.holderGlobalAddress()).isEqualTo(1);
    assertThat(e.holdsHole()).isFalse();
    failure(
        replica.read(
            StreamReadRequest.newBuilder().setStream(A.toMsg()).setFrom(0).setTo(0).build()),
        UnknownStreamException.class);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void redriveOfSameEntrySucceedsAndCommits(StorageMode mode) throws IOException {
    open(mode);
    LogEntryMsg e = data(4, "x", slot(A, 0), slot(B, 0));
    get(replica.write(write(e, false)));
    get(replica.write(write(e, true)));
    assertThat(read(A, 0, 0).get(0).getStatus()).isEqualTo(Status.COMMITTED);
    assertThat(read(B, 0, 0).get(0).getStatus()).isEqualTo(Status.COMMITTED);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void commitMarksSlotsAndRejectsEmptySlot(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(4, "x", slot(A, 0)), false)));
    failure(
        replica.commit(
            StreamCommitRequest.newBuilder().addSlots(slot(A, 0)).addSlots(slot(A, 1)).build()),
        BadRequestException.class);
    assertThat(read(A, 0, 0).get(0).getStatus()).isEqualTo(Status.UNCOMMITTED);
    get(replica.commit(StreamCommitRequest.newBuilder().addSlots(slot(A, 0)).build()));
    assertThat(read(A, 0, 0).get(0).getStatus()).isEqualTo(Status.COMMITTED);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void fillJunksEmptySlotAndAbortsUncommittedEntry(StorageMode mode) throws IOException {
    open(mode);
    ReadResult hole = fill(A, 0, false, true);
    assertThat(hole.getStatus()).isEqualTo(Status.COMMITTED);
    assertThat(hole.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
    OverwrittenException e =
        failure(
            replica.write(write(data(3, "late", slot(A, 0)), true)), OverwrittenException.class);
    assertThat(e.holdsHole()).isTrue();
    assertThat(e.holderGlobalAddress()).isEqualTo(-1);

    get(replica.write(write(data(5, "pending", slot(A, 1)), false)));
    assertThat(fill(A, 1, false, false).getStatus()).isEqualTo(Status.UNCOMMITTED);
    ReadResult aborting = fill(A, 1, true, false);
    assertThat(aborting.getStatus())
        .as("an abort in progress leaves its hole uncommitted")
        .isEqualTo(Status.UNCOMMITTED);
    assertThat(aborting.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
    ReadResult aborted = fill(A, 1, true, true);
    assertThat(aborted.getStatus()).isEqualTo(Status.COMMITTED);
    assertThat(aborted.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void unknownStreamIsReportedForReadAndTrim(StorageMode mode) throws IOException {
    open(mode);
    failure(
        replica.read(
            StreamReadRequest.newBuilder().setStream(A.toMsg()).setFrom(0).setTo(3).build()),
        UnknownStreamException.class);
    failure(
        replica.trim(StreamTrimRequest.newBuilder().setStream(A.toMsg()).setBefore(3).build()),
        UnknownStreamException.class);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void tailReportsPerStreamTailsAndMaxGlobal(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(7, "a0", slot(A, 0)), true)));
    get(replica.write(write(data(12, "ab", slot(A, 1), slot(B, 0)), false)));
    fill(B, 1, false, false);
    StreamTailResponse all = get(replica.tail(StreamTailRequest.newBuilder().setAll(true).build()));
    assertThat(all.getMaxGlobal()).isEqualTo(12);
    assertThat(all.getTailsList())
        .extracting(t -> StreamId.fromMsg(t.getStream()))
        .containsExactlyInAnyOrder(A, B);
    StreamTailResponse some =
        get(
            replica.tail(
                StreamTailRequest.newBuilder()
                    .addStreams(A.toMsg())
                    .addStreams(B.toMsg())
                    .build()));
    StreamTailEntry a = some.getTails(0);
    StreamTailEntry b = some.getTails(1);
    assertThat(a.getTail()).isEqualTo(1);
    assertThat(a.getLastGlobal()).isEqualTo(12);
    assertThat(b.getTail()).isEqualTo(1);
    // B's last slot is a hole: its last global address is that of the DATA entry before it.
    assertThat(b.getLastGlobal()).isEqualTo(12);
  }

  private StreamTailEntry tailOf(StreamId s) {
    return get(replica.tail(StreamTailRequest.newBuilder().addStreams(s.toMsg()).build()))
        .getTails(0);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void lastGlobalSkipsHolesAbortsAndTrimsAndSurvivesReopen(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(5, "a0", slot(A, 0)), true)));
    get(replica.write(write(data(9, "a1", slot(A, 1)), true)));
    fill(A, 2, false, true);
    fill(A, 3, false, true);
    assertThat(tailOf(A).getTail()).isEqualTo(3);
    assertThat(tailOf(A).getLastGlobal()).isEqualTo(9);
    // An uncommitted entry at the end is aborted into a hole: the one before it is the last.
    get(replica.write(write(data(14, "a4", slot(A, 4)), false)));
    assertThat(tailOf(A).getLastGlobal()).isEqualTo(14);
    fill(A, 4, true, true);
    assertThat(tailOf(A).getLastGlobal()).isEqualTo(9);
    // Trimming the last DATA entry away does not forget it; holes only above the mark.
    get(replica.trim(StreamTrimRequest.newBuilder().setStream(A.toMsg()).setBefore(3).build()));
    assertThat(tailOf(A).getLastGlobal()).isEqualTo(9);
    // A stream of holes only has no last global address.
    fill(B, 0, false, true);
    assertThat(tailOf(B).getTail()).isZero();
    assertThat(tailOf(B).getLastGlobal()).isEqualTo(-1);
    if (mode == StorageMode.DURABLE) {
      replica.close();
      open(mode);
      assertThat(tailOf(A).getTail()).isEqualTo(4);
      assertThat(tailOf(A).getLastGlobal()).isEqualTo(9);
      assertThat(tailOf(B).getLastGlobal()).isEqualTo(-1);
    }
    get(replica.write(write(data(20, "a5", slot(A, 5)), true)));
    assertThat(tailOf(A).getLastGlobal()).isEqualTo(20);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void trimIsPerStream(StorageMode mode) throws IOException {
    open(mode);
    for (int i = 0; i < 6; i++) {
      get(replica.write(write(data(i, "e" + i, slot(A, i), slot(B, i)), true)));
    }
    assertThat(
            get(replica.trim(
                    StreamTrimRequest.newBuilder().setStream(A.toMsg()).setBefore(4).build()))
                .getTrimMark())
        .isEqualTo(4);
    assertThat(read(A, 2, 4))
        .extracting(ReadResult::getStatus)
        .containsExactly(Status.TRIMMED, Status.TRIMMED, Status.COMMITTED);
    assertThat(read(B, 2, 2).get(0).getStatus()).isEqualTo(Status.COMMITTED);
    TrimmedException t =
        failure(replica.write(write(data(9, "old", slot(A, 1)), true)), TrimmedException.class);
    assertThat(t.stream()).isEqualTo(A);
    assertThat(
            get(replica.trim(
                    StreamTrimRequest.newBuilder().setStream(A.toMsg()).setBefore(1).build()))
                .getTrimMark())
        .isEqualTo(4);
  }

  private StreamTrimRequest trim(StreamId s, long before) {
    return StreamTrimRequest.newBuilder().setStream(s.toMsg()).setBefore(before).build();
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void trimPastTheTailIsRefusedNamingStreamMarkAndTail(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(0, "e0", slot(A, 0)), true)));
    get(replica.write(write(data(1, "e1", slot(A, 1)), true)));
    BadRequestException e = failure(replica.trim(trim(A, 100)), BadRequestException.class);
    assertThat(e.getMessage()).contains(A.toString()).contains("100").contains("tail is 1");
    // Nothing was trimmed, and the next slot can still be written.
    assertThat(read(A, 0, 1))
        .extracting(ReadResult::getStatus)
        .containsExactly(Status.COMMITTED, Status.COMMITTED);
    get(replica.write(write(data(2, "e2", slot(A, 2)), true)));
    // The next address after the tail is the highest mark allowed: it releases the whole stream.
    assertThat(get(replica.trim(trim(A, 3))).getTrimMark()).isEqualTo(3);
    get(replica.write(write(data(3, "e3", slot(A, 3)), true)));
    assertThat(read(A, 3, 3).get(0).getStatus()).isEqualTo(Status.COMMITTED);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void negativeTrimMarkIsRefused(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(0, "e0", slot(A, 0)), true)));
    BadRequestException e = failure(replica.trim(trim(A, -5)), BadRequestException.class);
    assertThat(e.getMessage()).contains(A.toString()).contains("-5");
    get(replica.write(write(data(1, "e1", slot(A, 1)), true)));
    assertThat(read(A, 0, 1))
        .extracting(ReadResult::getStatus)
        .containsExactly(Status.COMMITTED, Status.COMMITTED);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void duplicateStreamInOneWriteIsBadRequest(StorageMode mode) throws IOException {
    open(mode);
    StreamSlot s0 = slot(A, 0);
    StreamSlot s1 = slot(A, 1);
    failure(
        replica.write(
            StreamWriteRequest.newBuilder()
                .setEntry(data(1, "d", s0, s1))
                .addSlots(s0)
                .addSlots(s1)
                .setCommit(true)
                .build()),
        BadRequestException.class);
  }
}
