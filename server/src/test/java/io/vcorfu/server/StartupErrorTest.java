package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code vcorfu server} that cannot start prints why: the root cause, not an exception
 * class.
 */
class StartupErrorTest {
  @TempDir Path tmp;

  @Test
  void aFlippedByteInASegmentPrintsTheFileAndTheOffset() throws Exception {
    Path data = tmp.resolve("data");
    int port = ServerProcess.freePort();
    try (ServerProcess server = ServerProcess.start(port, data, null).awaitReady();
        NettyTransport transport = new NettyTransport();
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, server.endpoint(), StreamLogOptions.defaults())) {
      for (int i = 0; i < 50; i++) {
        log.append(List.of(StreamId.of("c")), ("value-" + i).getBytes(StandardCharsets.UTF_8))
            .join();
      }
    }
    Path segment = SegmentDamage.flipMiddleByteOfFirstSegment(data);
    try (ServerProcess server = ServerProcess.start(port, data, null)) {
      assertThat(server.awaitExit(Duration.ofSeconds(60))).isNotZero();
      String out = ServerProcess.errorLine(server);
      assertThat(out)
          .as(out)
          .contains(segment.toString())
          .containsPattern("offset \\d+")
          .doesNotContain("UncheckedIOException")
          .doesNotContain("\tat ");
    }
  }

  @Test
  void aMissingLayoutFilePrintsTheReason() throws Exception {
    Path missing = tmp.resolve("no-such-layout.json");
    try (ServerProcess server =
        ServerProcess.start(
            ServerProcess.freePort(), List.of("--memory", "--layout", missing.toString()))) {
      assertThat(server.awaitExit(Duration.ofSeconds(60))).isNotZero();
      String out = ServerProcess.errorLine(server);
      assertThat(out)
          .as(out)
          .contains(missing.toString())
          .containsIgnoringCase("no such file")
          .doesNotContain("Exception");
    }
  }
}
