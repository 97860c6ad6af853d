package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Entries large enough that a page of them is over the frame limit (1,100 entries of 20 KiB: 22 MB
 * in one page of slots) still read back in full and in order, and the stream can still be trimmed
 * (a trim reads the slots below its mark first): the reader halves a page whose reply would be too
 * large.
 */
class LargeEntriesPagingTest {
  private static final StreamId S = StreamId.of("large-entries");
  private static final int ENTRIES = 1_100;
  private static final int BYTES = 20 << 10;

  private static byte[] value(int i) {
    byte[] v = new byte[BYTES];
    new Random(i).nextBytes(v);
    ByteBuffer.wrap(v).putInt(i);
    return v;
  }

  @Test
  void aPageOfLargeEntriesReadsBackAndTheStreamTrims() {
    Endpoint at = new Endpoint("127.0.0.1", ServerProcess.freePort());
    try (NettyTransport transport = new NettyTransport();
        Node node = Node.start(NodeConfig.inMemory(at), transport);
        ClusterStreamLog log =
            ClusterStreamLog.connect(node.endpoint(), StreamLogOptions.defaults())) {
      for (int i = 0; i < ENTRIES; i += 50) {
        List<CompletableFuture<?>> batch = new ArrayList<>();
        for (int j = i; j < Math.min(ENTRIES, i + 50); j++) {
          batch.add(log.append(List.of(S), value(j)));
        }
        CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).join();
      }

      List<StreamEntry> all = log.readStream(S, 0, ENTRIES - 1).join();

      assertThat(all).hasSize(ENTRIES);
      List<Integer> numbers = new ArrayList<>();
      for (StreamEntry e : all) {
        numbers.add(ByteBuffer.wrap(e.payload()).getInt());
        assertThat(e.payload()).isEqualTo(value(ByteBuffer.wrap(e.payload()).getInt()));
      }
      assertThat(numbers).doesNotHaveDuplicates().hasSize(ENTRIES);
      assertThat(log.trimStream(S, 1_050).join()).isEqualTo(1_050);
      assertThat(log.readStream(S, 1_050, ENTRIES - 1).join()).hasSize(ENTRIES - 1_050);
    }
  }
}
