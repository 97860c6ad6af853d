package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import io.vcorfu.protocol.proto.StreamSlot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One stored copy per entry on a node holding both its log copy and its stream copy: the payload is
 * stored once and indexed under both, whether both visits come in one chain write or the stream
 * copy arrives later; what is read back is byte for byte what was written, across restarts; and the
 * space comes back only once both the log and the streams let go of it.
 */
class OneCopyTest {
  // By id alone, as a stream opened by id is written: the bounds below count no name's bytes (a
  // named stream's entries also hold its name, a few bytes).
  private static final StreamId S =
      new StreamId(StreamId.of("one-copy").msb(), StreamId.of("one-copy").lsb());
  private static final StreamId T = StreamId.of("one-copy-other");
  private static final int VALUE = 1024;

  @TempDir Path dir;

  private StorageOptions options() {
    return StorageOptions.builder()
        .mode(StorageMode.DURABLE)
        .directory(dir)
        .segmentSize(1 << 20)
        .build();
  }

  /** An entry as a client writes it: a 1 KB value, a nonce, the writer's id and number. */
  private static LogEntryMsg entry(long global, long epoch, Random random, StreamSlot... slots) {
    byte[] value = new byte[VALUE];
    random.nextBytes(value);
    return LogEntryMsg.newBuilder()
        .setGlobalAddress(global)
        .setKind(EntryKind.DATA)
        .setPayload(ByteString.copyFrom(value))
        .setEpoch(epoch)
        .setNonce(random.nextLong() | 1)
        .setWriter(StreamId.of("writer").toMsg())
        .setWriterSeq(global + 1)
        .addAllSlots(List.of(slots))
        .build();
  }

  private static ReplicaStore.Step logStep() {
    return new ReplicaStore.Step(true, List.of(), false);
  }

  private static ReplicaStore.Step streamStep(LogEntryMsg e) {
    return new ReplicaStore.Step(false, StreamReplica.Slot.of(e.getSlotsList()), true);
  }

  private long bytesOnDisk() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private long segmentFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".log")).count();
    }
  }

  private static ReadResult logAt(ReplicaStore store, long a) {
    return get(store.logReplica().read(a, a)).get(0);
  }

  private static ReadResult streamAt(ReplicaStore store, StreamId s, long a) {
    return get(store.streamReplica().read(s, a, a)).get(0);
  }

  private static void assertHolds(ReplicaStore store, List<LogEntryMsg> written) {
    for (LogEntryMsg e : written) {
      ReadResult log = logAt(store, e.getGlobalAddress());
      assertThat(log.getStatus()).isEqualTo(Status.COMMITTED);
      assertThat(log.getEntry()).isEqualTo(e);
      for (StreamSlot slot : e.getSlotsList()) {
        ReadResult r = streamAt(store, StreamId.fromMsg(slot.getStream()), slot.getStreamAddress());
        assertThat(r.getStatus()).isEqualTo(Status.COMMITTED);
        assertThat(r.getEntry()).isEqualTo(e);
      }
    }
  }

  @Test
  void bothVisitsInOneChainWriteStoreThePayloadOnceAcrossSegmentsAndRestarts() throws Exception {
    Random random = new Random(1);
    List<LogEntryMsg> written = new ArrayList<>();
    int n = 3_000; // about three segments of 1 MiB
    try (ReplicaStore store = ReplicaStore.open(options())) {
      for (int i = 0; i < n; i++) {
        StreamSlot[] slots =
            i % 10 == 0
                ? new StreamSlot[] {slot(S, i), slot(T, i / 10)} // some entries in two streams
                : new StreamSlot[] {slot(S, i)};
        LogEntryMsg e = entry(i, 2, random, slots);
        ReplicaStore.ChainWriteResult r =
            get(store.chainWrite(e, List.of(logStep(), streamStep(e)), true));
        assertThat(r.failure()).isNull();
        written.add(e);
      }
      assertHolds(store, written);
    }
    long perEntry = bytesOnDisk() / n;
    System.out.println(
        "OneCopyTest: " + perEntry + " bytes on disk per entry of a " + VALUE + "-byte value");
    assertThat(perEntry)
        .as("bytes stored per entry of a %d-byte value, index files included", VALUE)
        // The entry's digest, in its record and in the index file, comes on top.
        .isLessThanOrEqualTo((long) (VALUE * 1.15) + 2 * ChainDigests.LENGTH);
    assertThat(segmentFiles()).isGreaterThanOrEqualTo(3);

    // Reopened twice: from index files and a scanned active segment, then again after more
    // writes were appended to the reopened active segment (namespaces it named by number).
    try (ReplicaStore store = ReplicaStore.open(options())) {
      assertHolds(store, written);
      for (int i = n; i < n + 50; i++) {
        LogEntryMsg e = entry(i, 3, random, slot(T, 300 + i - n), slot(S, i));
        assertThat(get(store.chainWrite(e, List.of(logStep(), streamStep(e)), true)).failure())
            .isNull();
        written.add(e);
      }
    }
    try (ReplicaStore store = ReplicaStore.open(options())) {
      assertHolds(store, written);
    }
  }

  @Test
  void aStreamCopyArrivingInALaterCallSharesTheLogRecordsPayload() throws Exception {
    Random random = new Random(2);
    List<LogEntryMsg> written = new ArrayList<>();
    int n = 500;
    try (ReplicaStore store = ReplicaStore.open(options())) {
      for (int i = 0; i < n; i++) {
        LogEntryMsg e = entry(i, 2, random, slot(S, i));
        get(store.logReplica().write(e, false));
        get(store.streamReplica().write(e, StreamReplica.Slot.of(e.getSlotsList()), true));
        get(store.logReplica().commit(List.of((long) i)));
        written.add(e);
      }
    }
    assertThat(bytesOnDisk() / n)
        .as("one payload per entry plus three small records")
        // Both records naming the payload carry its digest, in the segment and the index file.
        .isLessThan(VALUE + 250L + 4 * ChainDigests.LENGTH);
    try (ReplicaStore store = ReplicaStore.open(options())) {
      assertHolds(store, written);
    }
  }

  @Test
  void aStreamCopyThatDiffersFromTheLogCopyKeepsItsOwnBytes() throws Exception {
    Random random = new Random(3);
    LogEntryMsg inLog = entry(0, 2, random, slot(S, 0));
    LogEntryMsg reDriven = inLog.toBuilder().setEpoch(5).build(); // same entry, later epoch
    try (ReplicaStore store = ReplicaStore.open(options())) {
      get(store.logReplica().write(inLog, true));
      get(
          store
              .streamReplica()
              .write(reDriven, StreamReplica.Slot.of(reDriven.getSlotsList()), true));
    }
    try (ReplicaStore store = ReplicaStore.open(options())) {
      assertThat(logAt(store, 0).getEntry()).isEqualTo(inLog);
      assertThat(streamAt(store, S, 0).getEntry()).isEqualTo(reDriven);
    }
  }

  @Test
  void payloadsTheStreamsStillHoldCountLiveAfterTheLogLetsGo() throws Exception {
    Random random = new Random(5);
    int n = 3_000;
    try (ReplicaStore store = ReplicaStore.open(options())) {
      for (int i = 0; i < n; i++) {
        LogEntryMsg e = entry(i, 2, random, slot(S, i));
        get(store.chainWrite(e, List.of(logStep(), streamStep(e)), true));
      }
      long live = store.space().liveBytes();
      assertThat(live).isGreaterThan((long) n * VALUE * 9 / 10);
      // The log's retention lets go within seconds; the stream keeps every payload.
      get(store.logReplica().trim(n));
      assertThat(store.space().liveBytes())
          .as("what the sealed segments hold live, by the estimate compaction picks them by")
          .isGreaterThanOrEqualTo(live * 9 / 10);
      assertThat(store.compact(0.5)).as("nothing to reclaim: every payload is live").isZero();
      assertThat(store.space().segmentsCompacted()).isZero();
    }
  }

  @Test
  void spaceComesBackOnlyOnceTheLogAndTheStreamsBothLetGo() throws Exception {
    Random random = new Random(4);
    int n = 3_000;
    try (ReplicaStore store = ReplicaStore.open(options())) {
      for (int i = 0; i < n; i++) {
        LogEntryMsg e = entry(i, 2, random, slot(S, i));
        get(store.chainWrite(e, List.of(logStep(), streamStep(e)), true));
      }
      long full = segmentFiles();
      get(store.streamReplica().trim(S, 100));
      assertThat(store.logNeededFrom(new long[2]))
          .as("the log keeps what lies above the last entry the stream trimmed away")
          .isEqualTo(100);
      get(store.streamReplica().trim(S, n));
      assertThat(segmentFiles()).as("the log still holds every entry").isEqualTo(full);
      assertThat(logAt(store, 0).getStatus()).isEqualTo(Status.COMMITTED);
      assertThat(streamAt(store, S, 0).getStatus()).isEqualTo(Status.TRIMMED);

      get(store.logReplica().trim(n));
      assertThat(segmentFiles()).as("only the active segment is left").isEqualTo(1);
    }
    try (ReplicaStore store = ReplicaStore.open(options())) {
      assertThat(logAt(store, 0).getStatus()).isEqualTo(Status.TRIMMED);
      assertThat(streamAt(store, S, n - 1).getStatus()).isEqualTo(Status.TRIMMED);
      // The active segment's few records, and the 1 MiB its writer keeps zeroed after them.
      assertThat(bytesOnDisk()).isLessThan(2 << 20);
    }
  }
}
