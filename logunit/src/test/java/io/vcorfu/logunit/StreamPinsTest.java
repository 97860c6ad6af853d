package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.failure;
import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import io.vcorfu.protocol.proto.StreamPinMsg;
import io.vcorfu.protocol.proto.StreamPinRequest;
import io.vcorfu.protocol.proto.StreamPinResponse;
import io.vcorfu.protocol.proto.StreamTailRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins of a stream replica: no trim passes a pin, a pin below the trim mark is refused with nothing
 * recorded, a release lets trims on, and pins stay through restarts, segment rolls and compaction
 * (a release too: a dropped pin never comes back from an older record).
 */
class StreamPinsTest {
  private static final StreamId S = StreamId.of("pinned");
  private static final StreamId FORK = StreamId.of("a fork");
  private static final StreamId AUDIT = StreamId.of("an audit");

  @TempDir Path dir;

  private StorageOptions options() {
    return Fixtures.compactedOnDemand(dir);
  }

  private static void write(ReplicaStore store, long from, long to) {
    for (long a = from; a < to; a++) {
      LogEntryMsg e =
          LogEntryMsg.newBuilder()
              .setGlobalAddress(a)
              .setKind(EntryKind.DATA)
              .setPayload(ByteString.copyFrom(new byte[1000]))
              .setEpoch(1)
              .setNonce(a + 1)
              .addSlots(slot(S, a))
              .build();
      List<ReplicaStore.Step> steps =
          List.of(
              new ReplicaStore.Step(true, List.of(), false),
              new ReplicaStore.Step(false, StreamReplica.Slot.of(e.getSlotsList()), true));
      assertThat(get(store.chainWrite(e, steps, true)).failure()).isNull();
    }
  }

  private static StreamPinResponse pin(ReplicaStore store, StreamId name, long at) {
    return get(store.streamReplica().pin(request(name, at, false)));
  }

  private static StreamPinRequest request(StreamId name, long at, boolean release) {
    return StreamPinRequest.newBuilder()
        .setStream(S.toMsg())
        .setPin(name.toMsg())
        .setAt(at)
        .setRelease(release)
        .build();
  }

  private static long trim(ReplicaStore store, long before) {
    return get(store.streamReplica().trim(S, before));
  }

  private static Map<StreamId, Long> pins(ReplicaStore store) {
    var tails =
        get(
            store
                .streamReplica()
                .tail(StreamTailRequest.newBuilder().addStreams(S.toMsg()).build()));
    Map<StreamId, Long> out = new java.util.LinkedHashMap<>();
    for (StreamPinMsg p : tails.getTails(0).getPinsList()) {
      out.put(StreamId.fromMsg(p.getPin()), p.getAt());
    }
    return out;
  }

  @Test
  void noTrimPassesAPinAndAReleaseLetsTrimsOn() throws Exception {
    try (ReplicaStore store = ReplicaStore.open(options())) {
      write(store, 0, 100);
      assertThat(trim(store, 10)).isEqualTo(10);
      assertThat(pin(store, FORK, 30).getTrimMark()).isEqualTo(10);
      assertThat(pin(store, AUDIT, 50).getPinsCount()).isEqualTo(2);
      assertThat(trim(store, 90)).as("stopped at the lowest pin").isEqualTo(30);
      List<ReadResult> kept = get(store.streamReplica().read(S, 30, 99));
      assertThat(kept).allMatch(r -> r.getStatus() == Status.COMMITTED);
      assertThat(get(store.streamReplica().read(S, 29, 29)).get(0).getStatus())
          .isEqualTo(Status.TRIMMED);

      get(store.streamReplica().pin(request(FORK, 0, true)));
      assertThat(trim(store, 90)).as("the next pin up").isEqualTo(50);
      get(store.streamReplica().pin(request(AUDIT, 0, true)));
      assertThat(pins(store)).isEmpty();
      assertThat(trim(store, 90)).isEqualTo(90);
    }
  }

  @Test
  void aPinBelowTheTrimMarkIsRefusedAndRecordsNothing() throws Exception {
    try (ReplicaStore store = ReplicaStore.open(options())) {
      write(store, 0, 20);
      trim(store, 10);
      TrimmedException refused =
          failure(store.streamReplica().pin(request(FORK, 9, false)), TrimmedException.class);
      assertThat(refused.trimMark()).isEqualTo(10);
      assertThat(pins(store)).isEmpty();
      assertThat(trim(store, 15)).isEqualTo(15);
      failure(store.streamReplica().pin(request(FORK, -1, false)), BadRequestException.class);
      assertThat(pins(store)).isEmpty();
    }
  }

  @Test
  void pinningAgainUnderOneNameMovesThePin() throws Exception {
    try (ReplicaStore store = ReplicaStore.open(options())) {
      write(store, 0, 40);
      pin(store, FORK, 5);
      pin(store, FORK, 20);
      assertThat(pins(store)).containsExactly(Map.entry(FORK, 20L));
      assertThat(trim(store, 30)).isEqualTo(20);
    }
  }

  @Test
  void pinsAndReleasesOutliveRestartsRollsAndCompaction() throws Exception {
    try (ReplicaStore store = ReplicaStore.open(options())) {
      write(store, 0, 50);
      pin(store, FORK, 20);
      pin(store, AUDIT, 40);
      get(store.streamReplica().pin(request(AUDIT, 0, true)));
      // Many more segments (64 KiB each, 1 KB entries), so the pins' own segment is compacted away.
      write(store, 50, 600);
      trim(store, 550);
      store.compact(0.99);
    }
    try (ReplicaStore store = ReplicaStore.open(options())) {
      assertThat(pins(store)).containsExactly(Map.entry(FORK, 20L));
      assertThat(store.streamReplica().trim(S, 580).get()).isEqualTo(20);
      List<ReadResult> kept = get(store.streamReplica().read(S, 20, 599));
      assertThat(kept).allMatch(r -> r.getStatus() == Status.COMMITTED);
      get(store.streamReplica().pin(request(FORK, 0, true)));
      write(store, 600, 700);
    }
    try (ReplicaStore store = ReplicaStore.open(options())) {
      assertThat(pins(store)).isEmpty();
      assertThat(trim(store, 650)).isEqualTo(650);
    }
  }

  @Test
  void aRebuildingReplicaTakesItsChainsPinsBeforeItTrims() throws Exception {
    try (ReplicaStore store = ReplicaStore.open(options())) {
      write(store, 0, 30);
      store.joinedAt(7);
      failure(store.streamReplica().trim(S, 25), NotServingException.class);
      get(store.streamReplica().adoptPins(Map.of(S, Map.of(FORK, 12L)), 7));
      assertThat(trim(store, 25)).isEqualTo(12);
      assertThat(pins(store)).containsExactly(Map.entry(FORK, 12L));
      store.joinedAt(9);
      failure(store.streamReplica().trim(S, 25), NotServingException.class);
      store.joinedAt(0);
      assertThat(trim(store, 25)).isEqualTo(12);
    }
  }
}
