package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A snapshot view holds back every client's trims past its version while it is registered, and
 * {@code objects().release(view)} withdraws it without waiting for the garbage collector; a view
 * opened under a hold registers nothing. Observed through the sequencer's snapshot floor (the
 * oldest version any client registered), on a real node in this JVM.
 */
class SnapshotReleaseTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final RuntimeOptions NO_RETENTION =
      RuntimeOptions.defaults().withRetention(Retention.OFF);

  private static long floor(StreamLog probe) {
    return probe.registerSnapshots(-1, 1_000).join().oldestRegistered();
  }

  @Test
  void aSnapshotViewHoldsBackTrimsUntilItIsReleasedAndOneUnderAHoldNever() {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport);
        StreamLog probe = ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
      node.ready().join();
      try (VCorfuRuntime writer =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()),
                  NO_RETENTION);
          VCorfuRuntime reader =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()),
                  NO_RETENTION)) {
        Counter c = writer.objects().open("released", Counter.class);
        for (int i = 0; i < 20; i++) {
          c.add(1);
        }
        long at = probe.tails(List.of()).join().globalTail();
        c.add(5);

        // Under a hold: read as any snapshot, registered nowhere (the reader registers nothing).
        reader.pinHistory(io.vcorfu.protocol.StreamId.of("released"), "test");
        Counter held =
            reader.objects().builder("released", Counter.class).asOf(at).underHold().open();
        assertThat(held.get()).isEqualTo(20);
        assertThat(reader.objects().release(held)).as("a held view is not registered").isFalse();

        Counter old = reader.objects().builder("released", Counter.class).asOf(at).open();
        assertThat(old.get()).isEqualTo(20);
        Awaitility.await("the reader registers its snapshot view")
            .atMost(Duration.ofSeconds(20))
            .until(() -> floor(probe), v -> v == at);

        assertThat(reader.objects().release(old)).as("a registered snapshot view").isTrue();
        assertThat(reader.objects().release(old)).as("released once only").isFalse();
        assertThat(reader.objects().release(c)).as("a live view of another runtime").isFalse();
        Awaitility.await("the reader withdraws it")
            .atMost(Duration.ofSeconds(20))
            .until(() -> floor(probe), v -> v > at);
        assertThat(old.get()).as("still readable: nothing trimmed it").isEqualTo(20);
        assertThat(held.get()).isEqualTo(20);
      }
    }
  }
}
