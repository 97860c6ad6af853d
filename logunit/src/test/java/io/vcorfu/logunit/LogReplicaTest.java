package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.failure;
import static io.vcorfu.logunit.Fixtures.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogCommitRequest;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogFillRequest;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogTailRequest;
import io.vcorfu.protocol.proto.LogTrimRequest;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Semantics of the log replica, in memory and durable mode alike. */
class LogReplicaTest {
  @TempDir Path dir;
  private LogReplica replica;

  private LogReplica open(StorageMode mode) throws IOException {
    replica = LogReplica.open(Fixtures.options(mode, dir));
    return replica;
  }

  @AfterEach
  void close() throws IOException {
    if (replica != null) {
      replica.close();
    }
  }

  private static LogWriteRequest write(LogEntryMsg e, boolean commit) {
    return LogWriteRequest.newBuilder().setEntry(e).setCommit(commit).build();
  }

  private ReadResult readOne(long address) {
    return get(replica.read(LogReadRequest.newBuilder().setFrom(address).setTo(address).build()))
        .getResults(0);
  }

  private ReadResult fill(long address, boolean abort, boolean commit) {
    return get(replica.fill(
            LogFillRequest.newBuilder()
                .setAddress(address)
                .setAbort(abort)
                .setCommit(commit)
                .build()))
        .getResult();
  }

  private static LogEntryMsg onStreams(long address, long... slots) {
    LogEntryMsg.Builder b = data(address, "e" + address).toBuilder().clearSlots();
    for (int i = 0; i < slots.length; i += 2) {
      b.addSlots(
          io.vcorfu.protocol.proto.StreamSlot.newBuilder()
              .setStream(io.vcorfu.protocol.StreamId.of("s" + slots[i]).toMsg())
              .setStreamAddress(slots[i + 1]));
    }
    return b.build();
  }

  private java.util.Map<String, String> streamTails() {
    java.util.Map<String, String> out = new java.util.TreeMap<>();
    for (var t :
        get(replica.tail(LogTailRequest.newBuilder().setStreams(true).build())).getStreamsList()) {
      String name =
          io.vcorfu.protocol.StreamId.fromMsg(t.getStream())
                  .equals(io.vcorfu.protocol.StreamId.of("s1"))
              ? "s1"
              : "s2";
      out.put(name, t.getTail() + "@" + t.getLastGlobal());
    }
    return out;
  }

  /**
   * Asked for stream tails, the replica reads what it holds once (entries from before a restart
   * too, committed or not), then counts every later write; holes count for nothing.
   */
  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void streamTailsCoverEveryEntryHeldBeforeAndAfterTheFirstAsk(StorageMode mode)
      throws IOException {
    open(mode);
    get(replica.write(write(onStreams(0, 1, 0), true)));
    get(replica.write(write(onStreams(1, 1, 1, 2, 0), false)));
    fill(2, false, true);
    if (mode == StorageMode.DURABLE) {
      replica.close();
      open(mode);
    }
    assertThat(streamTails()).containsEntry("s1", "1@1").containsEntry("s2", "0@1").hasSize(2);
    get(replica.write(write(onStreams(3, 2, 1), true)));
    get(replica.write(write(onStreams(4, 1, 0), true))); // a lower address of s1 changes nothing
    assertThat(streamTails()).containsEntry("s1", "1@1").containsEntry("s2", "1@3");
    assertThat(get(replica.tail(LogTailRequest.getDefaultInstance())).getStreamsCount())
        .as("not listed unless asked")
        .isZero();
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void writeThenReadReturnsCommittedOrUncommittedEntry(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(0, "a"), true)));
    get(replica.write(write(data(1, "b"), false)));
    List<ReadResult> r =
        get(replica.read(LogReadRequest.newBuilder().setFrom(0).setTo(2).build())).getResultsList();
    assertThat(r)
        .extracting(ReadResult::getStatus)
        .containsExactly(Status.COMMITTED, Status.UNCOMMITTED, Status.EMPTY);
    assertThat(r.get(0).getEntry()).isEqualTo(data(0, "a"));
    assertThat(r.get(1).getEntry()).isEqualTo(data(1, "b"));
    assertThat(r).extracting(ReadResult::getAddress).containsExactly(0L, 1L, 2L);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void commitMarksEntriesAndRejectsEmptyAddress(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(3, "x"), false)));
    get(replica.commit(LogCommitRequest.newBuilder().addAddresses(3).build()));
    assertThat(readOne(3).getStatus()).isEqualTo(Status.COMMITTED);
    get(replica.commit(LogCommitRequest.newBuilder().addAddresses(3).build()));
    failure(
        replica.commit(LogCommitRequest.newBuilder().addAddresses(4).build()),
        BadRequestException.class);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void rewritingSameEntryIsIdempotentAndCommits(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(5, "same"), false)));
    get(replica.write(write(data(5, "same").toBuilder().setEpoch(7).build(), true)));
    assertThat(readOne(5).getStatus()).isEqualTo(Status.COMMITTED);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void writingDifferentEntryOrOverHoleIsOverwritten(StorageMode mode) throws IOException {
    open(mode);
    get(replica.write(write(data(1, "first"), true)));
    OverwrittenException e =
        failure(replica.write(write(data(1, "second"), true)), OverwrittenException.class);
    assertThat(e.address()).isEqualTo(1);
    assertThat(e.stream()).isNull();
    assertThat(e.holdsHole()).isFalse();
    assertThat(e.holderGlobalAddress()).isEqualTo(1);
    assertThat(readOne(1).getEntry()).isEqualTo(data(1, "first"));

    fill(2, false, true);
    OverwrittenException h =
        failure(replica.write(write(data(2, "late"), true)), OverwrittenException.class);
    assertThat(h.holdsHole()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void fillFollowsTheRepairRules(StorageMode mode) throws IOException {
    open(mode);
    ReadResult empty = fill(0, false, false);
    assertThat(empty.getStatus()).isEqualTo(Status.UNCOMMITTED);
    assertThat(empty.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
    assertThat(fill(0, false, true).getStatus()).isEqualTo(Status.COMMITTED);

    get(replica.write(write(data(1, "pending"), false)));
    ReadResult kept = fill(1, false, true);
    assertThat(kept.getStatus()).isEqualTo(Status.UNCOMMITTED);
    assertThat(kept.getEntry()).isEqualTo(data(1, "pending"));
    // An abort in progress replaces the entry by a hole it commits only once decided.
    ReadResult aborting = fill(1, true, false);
    assertThat(aborting.getStatus()).isEqualTo(Status.UNCOMMITTED);
    assertThat(aborting.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
    ReadResult aborted = fill(1, true, true);
    assertThat(aborted.getStatus()).isEqualTo(Status.COMMITTED);
    assertThat(aborted.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
    get(replica.write(write(data(3, "pending"), false)));
    assertThat(fill(3, true, true).getStatus())
        .as("an abort-fill that commits replaces the entry by a committed hole at once")
        .isEqualTo(Status.COMMITTED);

    get(replica.write(write(data(2, "done"), true)));
    ReadResult committed = fill(2, true, true);
    assertThat(committed.getStatus()).isEqualTo(Status.COMMITTED);
    assertThat(committed.getEntry()).isEqualTo(data(2, "done"));
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void readRejectsBadRanges(StorageMode mode) throws IOException {
    open(mode);
    failure(
        replica.read(LogReadRequest.newBuilder().setFrom(5).setTo(4).build()),
        BadRequestException.class);
    failure(
        replica.read(LogReadRequest.newBuilder().setFrom(0).setTo(4096).build()),
        BadRequestException.class);
    assertThat(
            get(replica.read(LogReadRequest.newBuilder().setFrom(0).setTo(4095).build()))
                .getResultsCount())
        .isEqualTo(4096);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void trimHidesPrefixRejectsWritesAndNeverGoesBack(StorageMode mode) throws IOException {
    open(mode);
    for (int i = 0; i < 10; i++) {
      get(replica.write(write(data(i, "e" + i), true)));
    }
    assertThat(get(replica.trim(LogTrimRequest.newBuilder().setBefore(5).build())).getTrimMark())
        .isEqualTo(5);
    assertThat(get(replica.trim(LogTrimRequest.newBuilder().setBefore(2).build())).getTrimMark())
        .isEqualTo(5);
    assertThat(readOne(4).getStatus()).isEqualTo(Status.TRIMMED);
    assertThat(readOne(5).getStatus()).isEqualTo(Status.COMMITTED);
    TrimmedException t =
        failure(replica.write(write(data(3, "late"), true)), TrimmedException.class);
    assertThat(t.trimMark()).isEqualTo(5);
    assertThat(fill(1, true, true).getStatus()).isEqualTo(Status.TRIMMED);
    var tail = get(replica.tail(LogTailRequest.getDefaultInstance()));
    assertThat(tail.getTail()).isEqualTo(9);
    assertThat(tail.getTrimMark()).isEqualTo(5);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void trimPastTheTailOrBelowZeroIsRefusedAndTheLogStaysWritable(StorageMode mode)
      throws IOException {
    open(mode);
    for (int i = 0; i < 3; i++) {
      get(replica.write(write(data(i, "e" + i), true)));
    }
    BadRequestException past =
        failure(
            replica.trim(LogTrimRequest.newBuilder().setBefore(100).build()),
            BadRequestException.class);
    assertThat(past.getMessage()).contains("100").contains("tail is 2");
    BadRequestException negative =
        failure(
            replica.trim(LogTrimRequest.newBuilder().setBefore(-5).build()),
            BadRequestException.class);
    assertThat(negative.getMessage()).contains("-5");
    var tail = get(replica.tail(LogTailRequest.getDefaultInstance()));
    assertThat(tail.getTrimMark()).isZero();
    get(replica.write(write(data(3, "e3"), true)));
    assertThat(get(replica.trim(LogTrimRequest.newBuilder().setBefore(4).build())).getTrimMark())
        .isEqualTo(4);
    get(replica.write(write(data(4, "e4"), true)));
    assertThat(readOne(4).getStatus()).isEqualTo(Status.COMMITTED);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void tailIsHighestAddressOfAnyStatus(StorageMode mode) throws IOException {
    open(mode);
    assertThat(get(replica.tail(LogTailRequest.getDefaultInstance())).getTail()).isEqualTo(-1);
    get(replica.write(write(data(4, "x"), false)));
    fill(9, false, false);
    assertThat(get(replica.tail(LogTailRequest.getDefaultInstance())).getTail()).isEqualTo(9);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void oversizeEntryIsRejectedAndNothingWritten(StorageMode mode) throws IOException {
    replica = LogReplica.open(Fixtures.options(mode, dir).toBuilder().maxEntrySize(1000).build());
    String big = "x".repeat(2000);
    TooLargeException e =
        failure(replica.write(write(data(0, big), true)), TooLargeException.class);
    assertThat(e.limit()).isEqualTo(1000);
    assertThat(readOne(0).getStatus()).isEqualTo(Status.EMPTY);
    assertThat(get(replica.tail(LogTailRequest.getDefaultInstance())).getTail()).isEqualTo(-1);
  }
}
