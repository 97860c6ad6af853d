package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.failure;
import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rules of a rebuilding replica ({@link JoinState}), its purge and its installs. */
class RebuildingReplicaTest {
  private static final StreamId S = StreamId.of("s");

  @TempDir Path dir;
  private ReplicaStore store;

  @AfterEach
  void close() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  private ReplicaStore open() throws IOException {
    store = ReplicaStore.open(Fixtures.options(StorageMode.DURABLE, dir));
    return store;
  }

  private static LogEntryMsg at(long global, long epoch, long streamAddress) {
    return data(global, "e" + global, slot(S, streamAddress)).toBuilder().setEpoch(epoch).build();
  }

  private ReadResult streamSlot(long address) {
    store.joinedAt(0);
    try {
      return get(store.streamReplica().read(S, address, address)).get(0);
    } finally {
      store.joinedAt(5);
    }
  }

  @Test
  void anEntryOfBeforeTheJoinIsAcknowledgedButNotStored() throws IOException {
    open().joinedAt(5);
    get(
        store
            .streamReplica()
            .write(at(10, 4, 0), List.of(StreamReplica.Slot.of(slot(S, 0))), false));
    get(store.logReplica().write(at(11, 4, 1), false));
    // Its commit is ignored too, where a full member would refuse a commit of nothing.
    get(store.streamReplica().commit(List.of(StreamReplica.Slot.of(slot(S, 0)))));
    get(store.logReplica().commit(List.of(11L)));

    assertThat(store.missing(S, 0, 0)).isEqualTo(1);
    assertThat(store.missing(null, 11, 11)).isEqualTo(1);
    store.joinedAt(0);
    assertThat(get(store.logReplica().read(11, 11)).get(0).getStatus())
        .isEqualTo(ReadResult.Status.EMPTY);
  }

  @Test
  void anEntryOfTheJoinEpochOrLaterIsWrittenAsUsualAndWriteOnce() throws IOException {
    open().joinedAt(5);
    get(
        store
            .streamReplica()
            .write(at(10, 5, 0), List.of(StreamReplica.Slot.of(slot(S, 0))), false));

    Throwable clash =
        failure(
            store
                .streamReplica()
                .write(at(12, 6, 0), List.of(StreamReplica.Slot.of(slot(S, 0))), false));
    assertThat(clash).isInstanceOf(OverwrittenException.class);
    assertThat(streamSlot(0).getEntry().getGlobalAddress()).isEqualTo(10);
  }

  @Test
  void aFillLeavesAnUncommittedHoleThatStillRefusesALaterWrite() throws IOException {
    open().joinedAt(5);
    ReadResult filled = get(store.streamReplica().fill(S, 3, false, 0, true));

    assertThat(filled.getStatus()).isEqualTo(ReadResult.Status.UNCOMMITTED);
    assertThat(filled.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
    assertThat(
            failure(
                store
                    .streamReplica()
                    .write(at(20, 5, 3), List.of(StreamReplica.Slot.of(slot(S, 3))), false)))
        .isInstanceOf(OverwrittenException.class);
    assertThat(store.missing(S, 3, 3)).isEqualTo(1);
  }

  @Test
  void readsAreRefusedWhileRebuilding() throws IOException {
    open().joinedAt(5);
    assertThat(failure(store.streamReplica().read(S, 0, 0)))
        .isInstanceOf(NotServingException.class)
        .hasMessageContaining("rebuilding replica (joined at epoch 5)");
    assertThat(failure(store.logReplica().read(0, 0))).isInstanceOf(NotServingException.class);
  }

  @Test
  void purgeTurnsUncommittedDataIntoHolesAndKeepsCommittedRecords() throws IOException {
    open();
    get(store.logReplica().write(at(0, 1, 0), true));
    get(store.logReplica().write(at(1, 1, 1), false));
    get(store.streamReplica().write(at(0, 1, 0), List.of(StreamReplica.Slot.of(slot(S, 0))), true));
    get(
        store
            .streamReplica()
            .write(at(1, 1, 1), List.of(StreamReplica.Slot.of(slot(S, 1))), false));

    assertThat(store.purgeUncommittedData()).isEqualTo(2);
    store.close();
    open(); // the purge is durable

    ReadResult kept = get(store.logReplica().read(0, 1)).get(0);
    ReadResult purged = get(store.logReplica().read(0, 1)).get(1);
    assertThat(kept.getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
    assertThat(purged.getStatus()).isEqualTo(ReadResult.Status.UNCOMMITTED);
    assertThat(purged.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
    assertThat(get(store.streamReplica().read(S, 1, 1)).get(0).getEntry().getKind())
        .isEqualTo(EntryKind.HOLE);
    assertThat(store.missing(S, 0, 1)).isEqualTo(1);
    assertThat(store.purgeUncommittedData()).as("the holes it left are not data").isZero();
  }

  @Test
  void installWritesDecisionsOverUncommittedRecordsAndLeavesCommittedOnes() throws IOException {
    open().joinedAt(5);
    get(store.streamReplica().fill(S, 0, false, 0, true)); // an uncommitted hole
    LogEntryMsg decided = at(7, 3, 0);
    LogEntryMsg hole =
        LogEntryMsg.newBuilder().setKind(EntryKind.HOLE).setGlobalAddress(-1).build();
    List<ReadResult> copied =
        List.of(
            committed(0, decided),
            committed(1, hole),
            ReadResult.newBuilder().setAddress(2).setStatus(ReadResult.Status.EMPTY).build());

    long bytes = get(store.install(S, copied));

    assertThat(bytes).isEqualTo(decided.getSerializedSize() + hole.getSerializedSize());
    assertThat(store.missing(S, 0, 2)).isEqualTo(1);
    assertThat(streamSlot(0).getEntry()).isEqualTo(decided);
    assertThat(streamSlot(1).getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
    // A second copy of the same decisions changes nothing.
    assertThat(get(store.install(S, copied))).isZero();
  }

  private static ReadResult committed(long address, LogEntryMsg entry) {
    return ReadResult.newBuilder()
        .setAddress(address)
        .setStatus(ReadResult.Status.COMMITTED)
        .setEntry(entry)
        .build();
  }

  // A member that rebuilds some chains: odd log addresses and stream R are rebuilt here.
  private static final StreamId R = StreamId.of("rebuilt");

  private void joinedSomeChains() {
    store.joinedAt(5, a -> a % 2 == 1, R::equals);
  }

  @Test
  void aMemberFollowsTheRulesOnlyInTheChainsItRebuilds() throws IOException {
    open();
    joinedSomeChains();
    // Old-epoch writes: dropped in a rebuilt chain, stored in a served one.
    get(store.logReplica().write(at(11, 4, 0), false));
    get(store.logReplica().write(at(12, 4, 0), false));
    assertThat(store.missing(null, 11, 11)).isEqualTo(1);
    assertThat(store.missing(null, 12, 12)).as("stored, uncommitted").isEqualTo(1);
    get(store.logReplica().commit(List.of(12L)));
    assertThat(store.missing(null, 12, 12)).isZero();
    // A commit of nothing: ignored where rebuilt, refused where served.
    get(store.logReplica().commit(List.of(13L)));
    assertThat(failure(store.logReplica().commit(List.of(14L))))
        .isInstanceOf(io.vcorfu.protocol.BadRequestException.class);
    // A fill: an uncommitted hole where rebuilt, the committed hole asked for where served.
    assertThat(get(store.logReplica().fill(15, false, 0, true)).getStatus())
        .isEqualTo(ReadResult.Status.UNCOMMITTED);
    assertThat(get(store.logReplica().fill(16, false, 0, true)).getStatus())
        .isEqualTo(ReadResult.Status.COMMITTED);
  }

  @Test
  void aMembersLogReadHidesOnlyTheRebuiltAddresses() throws IOException {
    open();
    get(store.logReplica().write(at(20, 1, 0), true));
    get(store.logReplica().write(at(21, 1, 1), true));
    joinedSomeChains();

    List<ReadResult> mixed = get(store.logReplica().read(20, 21));
    assertThat(mixed.get(0).getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
    assertThat(mixed.get(1).getStatus())
        .as("an address of a chain it rebuilds reads as nothing held")
        .isEqualTo(ReadResult.Status.EMPTY);
    assertThat(mixed.get(1).getAddress()).isEqualTo(21);
    assertThat(failure(store.logReplica().read(21, 21)))
        .isInstanceOf(NotServingException.class)
        .hasMessageContaining("the chains it rebuilds");
  }

  @Test
  void aMembersStreamWriteDropsOnlyTheRebuiltStreamsSlots() throws IOException {
    open();
    joinedSomeChains();
    LogEntryMsg both = data(30, "both", slot(S, 0), slot(R, 0)).toBuilder().setEpoch(4).build();
    get(
        store
            .streamReplica()
            .write(
                both,
                List.of(StreamReplica.Slot.of(slot(S, 0)), StreamReplica.Slot.of(slot(R, 0))),
                true));

    assertThat(store.missing(S, 0, 0)).as("stream S is served here: stored").isZero();
    assertThat(store.missing(R, 0, 0)).as("stream R is rebuilt here: left to the copy").isOne();
    assertThat(get(store.streamReplica().read(S, 0, 0)).get(0).getEntry().getGlobalAddress())
        .isEqualTo(30);
    assertThat(failure(store.streamReplica().read(R, 0, 0)))
        .isInstanceOf(NotServingException.class);
    assertThat(get(store.streamReplica().fill(R, 1, false, 0, true)).getStatus())
        .isEqualTo(ReadResult.Status.UNCOMMITTED);
    assertThat(get(store.streamReplica().fill(S, 1, false, 0, true)).getStatus())
        .isEqualTo(ReadResult.Status.COMMITTED);
  }

  @Test
  void aMembersPurgeTouchesOnlyTheStreamsItJoins() throws IOException {
    open();
    get(store.logReplica().write(at(40, 1, 0), false));
    get(
        store
            .streamReplica()
            .write(at(40, 1, 0), List.of(StreamReplica.Slot.of(slot(S, 0))), false));
    LogEntryMsg r = data(41, "r", slot(R, 0)).toBuilder().setEpoch(1).build();
    get(store.streamReplica().write(r, List.of(StreamReplica.Slot.of(slot(R, 0))), false));

    assertThat(store.purgeUncommittedData(R::equals, false)).isEqualTo(1);

    assertThat(get(store.streamReplica().read(R, 0, 0)).get(0).getEntry().getKind())
        .isEqualTo(EntryKind.HOLE);
    assertThat(get(store.streamReplica().read(S, 0, 0)).get(0).getEntry().getKind())
        .as("its own chains' records stay as they are")
        .isEqualTo(EntryKind.DATA);
    assertThat(get(store.logReplica().read(40, 40)).get(0).getEntry().getKind())
        .isEqualTo(EntryKind.DATA);
  }
}
