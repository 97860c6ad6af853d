package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.checkpoint.Checkpoints;
import io.vcorfu.runtime.example.Counter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A running transaction registers its snapshot with the sequencer: another client's automatic trims
 * never pass it while it runs, and the transaction reads its snapshot to the end; once it ended the
 * trims go on, and a snapshot view as of that version, no longer retained, fails with the typed
 * error.
 */
class SnapshotRegistrationTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final StreamId COUNTER = StreamId.of("registered");

  private static long trimMark(StreamLog log) {
    Throwable t = catchThrowable(() -> log.readStream(COUNTER, 0, 0).join());
    return t instanceof CompletionException && t.getCause() instanceof TrimmedException e
        ? e.trimMark()
        : 0;
  }

  private static void addOneAtATime(Counter c, int n) {
    for (int i = 0; i < n; i++) {
      c.add(1);
      c.get();
    }
  }

  private static void awaitCheckpoints(StreamLog log, int n) {
    StreamId cp = Checkpoints.streamOf(COUNTER);
    Awaitility.await(n + " checkpoints")
        .atMost(Duration.ofSeconds(30))
        .until(() -> log.tails(List.of(cp)).join().streamTails().getOrDefault(cp, -1L) + 1 >= n);
  }

  @Test
  void aRunningTransactionIsNeverTrimmedUnderAndItsSnapshotGoesOnceItEnds() {
    RuntimeOptions trimming =
        RuntimeOptions.defaults()
            .withRetention(
                Retention.DEFAULT
                    .withCheckpointMinBytes(512)
                    .withHistoryBudgetBytes(0)
                    .withRetainVersions(10));
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport);
        StreamLog admin = ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults());
        VCorfuRuntime writer =
            VCorfuRuntime.using(
                ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()), trimming);
        VCorfuRuntime reader =
            VCorfuRuntime.using(
                ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()),
                RuntimeOptions.defaults())) {
      node.ready().join();
      Counter w = writer.objects().open("registered", Counter.class);
      addOneAtATime(w, 20);
      // The writer's first checkpoint, of these 20 updates, comes before the reader's snapshot:
      // the one checkpoint a trim may use while the transaction runs. (Left to the timer, it could
      // come after the next updates, above the snapshot, and nothing could be trimmed.)
      awaitCheckpoints(admin, 1);
      long snapshotPos = admin.tails(List.of(COUNTER)).join().streamTails().get(COUNTER) + 1;

      Counter r = reader.objects().open("registered", Counter.class);
      reader.TXBegin();
      assertThat(r.get()).isEqualTo(20);
      long snapshot = admin.tails(List.of()).join().globalTail();
      // The reader's runtime registers the snapshot at its next pass (every second).
      Awaitility.await("registered")
          .atMost(Duration.ofSeconds(10))
          .until(() -> admin.registerSnapshots(-1, 1).join().oldestRegistered() <= snapshot);

      for (int round = 1; round <= 3; round++) {
        addOneAtATime(w, 100);
        awaitCheckpoints(admin, 1 + round);
      }
      // The sequencer's registrations are complete once a whole lease has passed since it started;
      // then the writer's runtime trims as its retention allows, but never past the snapshot.
      Awaitility.await("the writer's trims, up to the snapshot")
          .atMost(Duration.ofSeconds(40))
          .until(() -> trimMark(admin), m -> m > 0);
      assertThat(trimMark(admin))
          .as("never past the registered snapshot")
          .isLessThanOrEqualTo(snapshotPos);
      assertThat(r.get()).as("the transaction still reads its snapshot").isEqualTo(20);
      reader.TXEnd();

      addOneAtATime(w, 100);
      awaitCheckpoints(admin, 5);
      Awaitility.await("trimmed past the ended transaction's snapshot")
          .atMost(Duration.ofSeconds(30))
          .until(() -> trimMark(admin), m -> m > snapshotPos);
      // A fresh client (the reader still holds the old versions in memory and serves them).
      try (VCorfuRuntime fresh =
          VCorfuRuntime.using(
              ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()))) {
        Counter old = fresh.objects().builder("registered", Counter.class).asOf(snapshot).open();
        Throwable t = catchThrowable(old::get);
        assertThat(t).isInstanceOf(TrimmedException.class);
        assertThat(((TrimmedException) t).stream()).isEqualTo(COUNTER);
      }
    }
  }
}
