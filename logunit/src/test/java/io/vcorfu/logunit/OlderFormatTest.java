package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory written by the previous storage layout (fixed-size keys in every record, index
 * files of version 1; {@code src/test/resources/stores/format-1}: 40 entries in streams v1-a and
 * v1-b over 4 KiB segments, v1-a trimmed below 5, then 5 uncommitted log-only entries) opens, reads
 * back what it held, and takes new writes in the current layout, in the same active segment.
 */
class OlderFormatTest {
  private static final StreamId A = StreamId.of("v1-a");
  private static final StreamId B = StreamId.of("v1-b");
  private static final String[] FILES = {
    "segment-000001.idx", "segment-000001.log", "segment-000002.idx", "segment-000002.log",
    "segment-000003.idx", "segment-000003.log", "segment-000004.idx", "segment-000004.log",
    "segment-000005.idx", "segment-000005.log", "segment-000006.idx", "segment-000006.log",
    "segment-000007.idx", "segment-000007.log", "segment-000008.log"
  };

  @TempDir Path dir;

  private StorageOptions options() {
    return StorageOptions.builder()
        .mode(StorageMode.DURABLE)
        .directory(dir)
        .segmentSize(4096)
        .build();
  }

  private void copyFixture() throws IOException {
    for (String f : FILES) {
      try (InputStream in = getClass().getResourceAsStream("/stores/format-1/" + f)) {
        Files.copy(in, dir.resolve(f));
      }
    }
  }

  private static String value(int i) {
    return "value-" + i + "-" + "x".repeat(200);
  }

  private static void assertFixtureHeld(ReplicaStore store) {
    for (int i = 0; i < 40; i++) {
      ReadResult log = get(store.logReplica().read(i, i)).get(0);
      assertThat(log.getStatus()).isEqualTo(Status.COMMITTED);
      assertThat(log.getEntry().getPayload().toStringUtf8()).isEqualTo(value(i));
      ReadResult a = get(store.streamReplica().read(A, i, i)).get(0);
      assertThat(a.getStatus()).isEqualTo(i < 5 ? Status.TRIMMED : Status.COMMITTED);
      ReadResult b = get(store.streamReplica().read(B, i, i)).get(0);
      assertThat(b.getEntry()).isEqualTo(log.getEntry());
    }
    for (int i = 40; i < 45; i++) {
      ReadResult log = get(store.logReplica().read(i, i)).get(0);
      assertThat(log.getStatus()).isEqualTo(Status.UNCOMMITTED);
      assertThat(log.getEntry().getPayload().toStringUtf8()).isEqualTo("value-" + i);
    }
  }

  @Test
  void aStoreOfThePreviousLayoutOpensReadsAndTakesNewWrites() throws Exception {
    copyFixture();
    LogEntryMsg later = Fixtures.data(45, "later", slot(A, 45), slot(B, 45));
    try (ReplicaStore store = ReplicaStore.open(options())) {
      assertThat(store.recoveryStats().segmentsFromIndex()).isPositive();
      assertFixtureHeld(store);
      assertThat(
              get(store.chainWrite(
                      later,
                      List.of(
                          new ReplicaStore.Step(true, List.of(), false),
                          new ReplicaStore.Step(
                              false, StreamReplica.Slot.of(later.getSlotsList()), true)),
                      true))
                  .failure())
          .isNull();
    }
    try (ReplicaStore store = ReplicaStore.open(options())) {
      assertFixtureHeld(store);
      assertThat(get(store.streamReplica().read(B, 45, 45)).get(0).getEntry()).isEqualTo(later);
      assertThat(get(store.logReplica().read(45, 45)).get(0).getStatus())
          .isEqualTo(Status.COMMITTED);
    }
  }
}
