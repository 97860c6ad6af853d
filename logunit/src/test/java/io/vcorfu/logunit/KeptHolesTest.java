package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.failure;
import static io.vcorfu.logunit.Fixtures.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogStripe;
import io.vcorfu.protocol.proto.LogTrimRequest;
import io.vcorfu.protocol.proto.LogTrimResponse;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamTailRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log replica's half of the global log's prefix trim: it passes only addresses it holds decided
 * (of its own chains), names the undecided ones, and keeps the holes it passes, which read as
 * holes, refuse writes, and survive compaction and a restart.
 */
class KeptHolesTest {
  @TempDir Path dir;

  private StorageOptions options() {
    return Fixtures.compactedOnDemand(dir);
  }

  @Test
  void aTrimStopsAtTheFirstAddressItsChainsHoldUndecidedAndPassesOtherChains() throws Exception {
    try (ReplicaStore store = ReplicaStore.open(options())) {
      LogReplica log = store.logReplica();
      get(log.write(data(0, "a"), true));
      get(log.write(data(1, "b"), false)); // uncommitted
      get(log.write(data(3, "d"), true)); // 2 is empty: a token taken and never written
      get(log.write(data(5, "f"), true));

      LogTrimResponse dry =
          get(log.trim(LogTrimRequest.newBuilder().setBefore(6).setDryRun(true).build()));
      assertThat(dry.getTrimMark()).isZero();
      assertThat(dry.getUndecidedList()).containsExactly(1L, 2L, 4L);

      LogTrimResponse t = get(log.trim(LogTrimRequest.newBuilder().setBefore(6).build()));
      assertThat(t.getTrimMark()).isEqualTo(1);
      assertThat(t.getUndecidedList()).containsExactly(1L, 2L, 4L);

      get(log.commit(List.of(1L)));
      // Two chains, this replica serving chain 1 (the odd addresses): 2 and 4 are another's.
      LogStripe odd = LogStripe.newBuilder().setFrom(0).setTo(6).setChains(2).addHeld(1).build();
      t = get(log.trim(LogTrimRequest.newBuilder().setBefore(6).addStripes(odd).build()));
      assertThat(t.getTrimMark()).isEqualTo(6);
      assertThat(t.getUndecidedList()).isEmpty();
    }
  }

  @Test
  void keptHolesReadAsHolesRefuseWritesAndOutliveCompactionAndARestart() throws Exception {
    try (ReplicaStore store = ReplicaStore.open(options())) {
      LogReplica log = store.logReplica();
      String big = "x".repeat(2_000);
      for (long a = 0; a < 200; a++) {
        if (a % 50 == 7) {
          get(log.fill(a, false, 0, true));
        } else {
          get(log.write(data(a, big + a), true));
        }
      }
      assertThat(get(log.trim(200))).isEqualTo(200);
      assertThat(log.keptHoles()).containsExactly(7, 57, 107, 157);
      // More entries after the kept holes' records, trimmed too: the holes are what is live of
      // their segment, and compaction moves them.
      for (long a = 200; a < 400; a++) {
        get(log.write(data(a, big + a), true));
      }
      assertThat(get(log.trim(400))).isEqualTo(400);
      assertThat(store.compact(0.9)).isPositive();
    }
    try (ReplicaStore store = ReplicaStore.open(options())) {
      LogReplica log = store.logReplica();
      assertThat(log.keptHoles()).containsExactly(7, 57, 107, 157);
      List<ReadResult> read = get(log.read(0, 399));
      for (ReadResult r : read) {
        if (r.getAddress() < 200 && r.getAddress() % 50 == 7) {
          assertThat(r.getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
          assertThat(r.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
          assertThat(r.getEntry().getGlobalAddress()).isEqualTo(r.getAddress());
        } else {
          assertThat(r.getStatus()).isEqualTo(ReadResult.Status.TRIMMED);
        }
      }
      // A dead writer's late log copy is refused by the hole (and its drive aborts it).
      assertThat(
              failure(log.write(data(57, "late"), false), OverwrittenException.class).holdsHole())
          .isTrue();
      failure(log.write(data(58, "late"), false), TrimmedException.class);
      ReadResult filled = get(log.fill(107, true, 0, true));
      assertThat(filled.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
      // The reserved namespace is no stream: not listed, and refused by name.
      assertThat(
              get(store.streamReplica().tail(StreamTailRequest.newBuilder().setAll(true).build()))
                  .getTailsCount())
          .isZero();
      failure(store.streamReplica().read(new StreamId(0, 1), 0, 0), BadRequestException.class);
    }
  }
}
