package io.vcorfu.logunit;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.logunit.internal.StorageEngine;
import io.vcorfu.protocol.StreamId;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader of one stream waits for the segment writer only while a record of that stream is not
 * durable yet; other streams' pending writes do not hold it up.
 */
class ReadBarrierTest {
  private static final StreamId A = StreamId.of("a");
  private static final StreamId B = StreamId.of("b");

  @TempDir Path dir;

  private static long[] key(StreamId s, long address) {
    return new long[] {s.msb(), s.lsb(), address};
  }

  @Test
  void aStreamWhoseRecordsAreDurableIsReadWithoutWaitingForOtherStreamsWrites() throws Exception {
    try (StorageEngine engine = StorageEngine.open(Fixtures.options(StorageMode.DURABLE, dir))) {
      engine.put(key(A, 0), 0, 1, StorageEngine.COMMITTED, new byte[] {1}, null);
      engine.barrier().get(10, TimeUnit.SECONDS);
      CompletableFuture<?> laterB =
          engine.group(
              () -> {
                // Held: B's record and its commit mark have not reached the writer yet.
                engine.put(key(B, 0), 1, 2, (byte) 0, new byte[] {2}, null);
                engine.commit(key(B, 0));
                assertThat(engine.barrierFor(A, true)).as("A holds only durable records").isDone();
                assertThat(engine.barrierFor(B, true))
                    .as("B's record is not durable yet")
                    .isNotDone();
                assertThat(engine.barrier()).as("the engine-wide barrier").isNotDone();
                return engine.barrierFor(B, true);
              });
      laterB.get(10, TimeUnit.SECONDS);
      assertThat(engine.barrierFor(B, true)).as("once written, B needs no wait either").isDone();
      assertThat(engine.barrierFor(StreamId.of("never-written"), true)).isDone();
    }
  }

  @Test
  void aCommitMarkCountsAsAWriteOfItsStream() throws Exception {
    try (StorageEngine engine = StorageEngine.open(Fixtures.options(StorageMode.DURABLE, dir))) {
      engine.put(key(A, 0), 0, 1, (byte) 0, new byte[] {1}, null);
      engine.barrier().get(10, TimeUnit.SECONDS);
      engine.group(
          () -> {
            engine.commit(key(A, 0));
            // A reader must not see the commit flag before the commit mark is durable.
            assertThat(engine.barrierFor(A, true)).isNotDone();
            return null;
          });
    }
  }
}
