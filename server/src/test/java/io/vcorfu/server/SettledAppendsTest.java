package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client's sequenced writes tell the node which of its appends have finished, so the node's table
 * of retried appends holds about the appends in flight, not the last 65,536.
 */
class SettledAppendsTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final int THREADS = 8;
  private static final int APPENDS_PER_THREAD = 250;

  @TempDir Path tmp;

  @Test
  void theNodeForgetsTheAppendsItsWriterHasTheOutcomeOf() throws Exception {
    InJvmTransport transport = new InJvmTransport();
    try (transport;
        Node node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport);
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
      node.ready().join();
      List<CompletableFuture<Void>> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        StreamId s = StreamId.of("settled-" + t);
        threads.add(
            CompletableFuture.runAsync(
                () -> {
                  for (int i = 0; i < APPENDS_PER_THREAD; i++) {
                    log.append(List.of(s), new byte[] {(byte) i}).join();
                  }
                }));
      }
      CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      // One more append: it says that every earlier one has finished.
      log.append(List.of(StreamId.of("settled-last")), new byte[] {1}).join();
      int held = node.roles().sequencer().writers().size();
      assertThat(held)
          .as("attempts the node holds after %d appends", THREADS * APPENDS_PER_THREAD + 1)
          .isLessThanOrEqualTo(THREADS + 1);
    }
  }
}
