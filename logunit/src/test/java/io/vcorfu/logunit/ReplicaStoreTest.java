package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.failure;
import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.ChainWriteResponse;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import io.vcorfu.protocol.proto.StreamFillRequest;
import io.vcorfu.protocol.proto.StreamReadRequest;
import io.vcorfu.protocol.proto.StreamTailRequest;
import io.vcorfu.protocol.proto.StreamWriteRequest;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** One node's storage: both replica roles on one engine, and chain writes that visit both. */
class ReplicaStoreTest {
  private static final StreamId A = StreamId.of("a");
  private static final StreamId B = StreamId.of("b");

  @TempDir Path dir;
  private ReplicaStore store;

  private void open(StorageMode mode) throws IOException {
    store = ReplicaStore.open(Fixtures.options(mode, dir));
  }

  @AfterEach
  void close() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  private static ChainWriteRequest logThenStreams(LogEntryMsg e, boolean commitEarlier) {
    return ChainWriteRequest.newBuilder()
        .setEntry(e)
        .addSteps(ChainStep.newBuilder().setLog(true))
        .addSteps(ChainStep.newBuilder().addAllSlots(e.getSlotsList()).setCommit(true))
        .setCommitEarlier(commitEarlier)
        .build();
  }

  private ReadResult logAt(long address) {
    return get(store
            .logReplica()
            .read(LogReadRequest.newBuilder().setFrom(address).setTo(address).build()))
        .getResults(0);
  }

  private ReadResult streamAt(StreamId s, long address) {
    return get(store
            .streamReplica()
            .read(
                StreamReadRequest.newBuilder()
                    .setStream(s.toMsg())
                    .setFrom(address)
                    .setTo(address)
                    .build()))
        .getResults(0);
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void aChainWriteEndingTheChainLeavesEveryStepCommitted(StorageMode mode) throws IOException {
    open(mode);
    LogEntryMsg e = data(0, "both", slot(A, 0), slot(B, 0));
    ChainWriteResponse r = get(store.chainWrite(logThenStreams(e, true)));
    assertThat(r.getDone()).isEqualTo(2);
    assertThat(r.hasError()).isFalse();
    assertThat(logAt(0).getStatus()).isEqualTo(Status.COMMITTED);
    assertThat(logAt(0).getEntry()).isEqualTo(e);
    assertThat(streamAt(A, 0).getStatus()).isEqualTo(Status.COMMITTED);
    assertThat(streamAt(B, 0).getEntry()).isEqualTo(e);
  }

  @Test
  void eachDurableChainWriteIsForcedToDiskExactlyOnce() throws IOException {
    open(StorageMode.DURABLE);
    long before = store.forcedWrites();
    for (int i = 0; i < 50; i++) {
      // Log step, stream step for two streams, and the log step's commit: all in one force.
      ChainWriteResponse r =
          get(store.chainWrite(logThenStreams(data(i, "v" + i, slot(A, i), slot(B, i)), true)));
      assertThat(r.hasError()).isFalse();
    }
    assertThat(store.forcedWrites() - before).isEqualTo(50);
    assertThat(logAt(49).getStatus()).isEqualTo(Status.COMMITTED);
  }

  @Test
  void theForceObserverSeesEachForceAndTheRecordsItMadeDurable() throws IOException {
    java.util.List<long[]> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    store =
        ReplicaStore.open(
            Fixtures.options(StorageMode.DURABLE, dir).toBuilder()
                .forceObserver((nanos, records) -> seen.add(new long[] {nanos, records}))
                .build());
    for (int i = 0; i < 20; i++) {
      get(store.chainWrite(logThenStreams(data(i, "v" + i, slot(A, i)), true)));
    }
    // Each chain write was acknowledged after its force, and the observer runs before the force
    // is reported durable, so every force is seen by now.
    assertThat(seen).hasSize((int) store.forcedWrites());
    assertThat(seen.stream().mapToLong(f -> f[1]).sum()).isEqualTo(store.forcedAppends());
    assertThat(seen).allSatisfy(f -> assertThat(f[0]).isPositive());
    assertThat(seen).allSatisfy(f -> assertThat(f[1]).isPositive());
  }

  @Test
  void withoutCommitEarlierTheLogStepStaysUncommitted() throws IOException {
    open(StorageMode.MEMORY);
    LogEntryMsg e = data(0, "v", slot(A, 0));
    get(store.chainWrite(logThenStreams(e, false)));
    assertThat(logAt(0).getStatus()).isEqualTo(Status.UNCOMMITTED);
    assertThat(streamAt(A, 0).getStatus()).isEqualTo(Status.COMMITTED);
  }

  @Test
  void aFailedStepStopsTheWriteAndReportsItsTypedError() throws IOException {
    open(StorageMode.MEMORY);
    // Someone filled the stream slot first (a reader repairing a presumed-dead writer).
    get(
        store
            .streamReplica()
            .fill(
                StreamFillRequest.newBuilder()
                    .setStream(A.toMsg())
                    .setStreamAddress(0)
                    .setCommit(true)
                    .build()));
    LogEntryMsg e = data(0, "late", slot(A, 0));
    ChainWriteResponse r = get(store.chainWrite(logThenStreams(e, true)));
    assertThat(r.getDone()).isEqualTo(1);
    assertThat(Errors.toException(r.getError())).isInstanceOf(OverwrittenException.class);
    // The log step ran, but nothing after the failed step did: the log entry is not committed.
    assertThat(logAt(0).getStatus()).isEqualTo(Status.UNCOMMITTED);
    assertThat(streamAt(A, 0).getStatus()).isEqualTo(Status.COMMITTED);
    assertThat(streamAt(A, 0).getEntry().getKind())
        .isEqualTo(io.vcorfu.protocol.proto.EntryKind.HOLE);
  }

  @Test
  void aFailedFirstStepWritesNothing() throws IOException {
    open(StorageMode.MEMORY);
    get(
        store
            .logReplica()
            .write(
                io.vcorfu.protocol.proto.LogWriteRequest.newBuilder()
                    .setEntry(data(0, "other", slot(B, 0)))
                    .setCommit(true)
                    .build()));
    ChainWriteResponse r = get(store.chainWrite(logThenStreams(data(0, "mine", slot(A, 0)), true)));
    assertThat(r.getDone()).isZero();
    assertThat(Errors.toException(r.getError())).isInstanceOf(OverwrittenException.class);
    // The stream step never ran: the stream replica has never heard of stream A.
    assertThat(
            failure(
                store
                    .streamReplica()
                    .read(
                        StreamReadRequest.newBuilder()
                            .setStream(A.toMsg())
                            .setFrom(0)
                            .setTo(0)
                            .build())))
        .isInstanceOf(io.vcorfu.protocol.UnknownStreamException.class);
  }

  @Test
  void aChainWriteWithNoStepsIsABadRequest() throws IOException {
    open(StorageMode.MEMORY);
    assertThat(
            failure(
                store.chainWrite(ChainWriteRequest.newBuilder().setEntry(data(0, "x")).build())))
        .isInstanceOf(BadRequestException.class);
  }

  @Test
  void bothRolesRecoverFromTheSharedEngineAfterRestart() throws IOException {
    open(StorageMode.DURABLE);
    for (int g = 0; g < 20; g++) {
      get(
          store.chainWrite(
              logThenStreams(data(g, "v" + g, slot(g % 2 == 0 ? A : B, g / 2)), true)));
    }
    store.close();
    store = ReplicaStore.open(Fixtures.options(StorageMode.DURABLE, dir));
    for (int g = 0; g < 20; g++) {
      assertThat(logAt(g).getStatus()).isEqualTo(Status.COMMITTED);
      assertThat(streamAt(g % 2 == 0 ? A : B, g / 2).getEntry().getGlobalAddress()).isEqualTo(g);
    }
    // The stream replica lists streams only, never the log's namespace.
    assertThat(
            get(store.streamReplica().tail(StreamTailRequest.newBuilder().setAll(true).build()))
                .getTailsList())
        .extracting(t -> StreamId.fromMsg(t.getStream()))
        .containsExactlyInAnyOrder(A, B);
  }

  @Test
  void theLogsReservedNamespaceIsNotAStream() throws IOException {
    open(StorageMode.MEMORY);
    LogEntryMsg e = data(0, "x", slot(new StreamId(0, 0), 0));
    assertThat(
            failure(
                store
                    .streamReplica()
                    .write(
                        StreamWriteRequest.newBuilder()
                            .setEntry(e)
                            .addAllSlots(e.getSlotsList())
                            .build())))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("reserved for the global log");
  }
}
