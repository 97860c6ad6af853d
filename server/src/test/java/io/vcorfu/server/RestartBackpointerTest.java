package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.Token;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real durable node restarted while a stream's last slot is a hole: the sequencer it rebuilds
 * knows the global address of the stream's last DATA entry (what a backpointer would have named;
 * read leases use it), not -1, and places the next entry after the hole.
 */
class RestartBackpointerTest {
  private static final StreamLogOptions OPTIONS =
      StreamLogOptions.defaults().withRepairAfter(Duration.ofMillis(100));

  @Test
  void backpointerAfterRestartSkipsATrailingHole(@TempDir Path tmp) throws Exception {
    int port = ServerProcess.freePort();
    Path data = tmp.resolve("node");
    StreamId s = StreamId.of("restart-backpointer");
    long lastData;
    try (NettyTransport transport = new NettyTransport()) {
      try (ServerProcess server = ServerProcess.start(port, data, null);
          ClusterStreamLog log =
              ClusterStreamLog.connect(transport, server.awaitReady().endpoint(), OPTIONS)) {
        log.append(List.of(s), bytes("first")).join();
        lastData = log.append(List.of(s), bytes("second")).join().globalAddress();
        // A writer takes the stream's next slot and dies: a reader fills it with a hole.
        Token abandoned = log.ops().token(List.of(s), null, 1).join().token(0);
        long slot = abandoned.getSlots(0).getStreamAddress();
        StreamEntry filled = log.readStream(s, slot, slot).get(10, TimeUnit.SECONDS).get(0);
        assertThat(filled.isHole()).as("the abandoned slot became a hole").isTrue();
        server.kill9();
      }
      // Started before waiting, so that the process is ended even if it never becomes ready.
      try (ServerProcess restarted = ServerProcess.start(port, data, null);
          ClusterStreamLog log =
              ClusterStreamLog.connect(transport, restarted.awaitReady().endpoint(), OPTIONS)) {
        assertThat(log.ops().tail(List.of(s)).join().getStreamLastGlobal(0))
            .as("the rebuilt sequencer's last data entry of the stream")
            .isEqualTo(lastData);
        AppendResult next = log.append(List.of(s), bytes("after restart")).join();
        long address = next.streamAddresses().get(s);
        assertThat(address).as("the next entry lands after the hole").isEqualTo(3);
        ReadResult stored =
            log.ops().streamRead(restarted.endpoint(), s, address, address).join().get(0);
        assertThat(stored.getEntry().getGlobalAddress()).isEqualTo(next.globalAddress());
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
