package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.StreamPinMsg;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins through {@code kill -9}, on a real {@code vcorfu server} process with its defaults: a pin
 * answered is durable, and so is a release, each killed right after its answer; after each restart
 * on the same directory the pins are what was answered, a trim stops at the one held, and every
 * entry from it reads back.
 */
class PinKillNineTest {
  private static final StreamId S = StreamId.of("pin-kill");
  private static final StreamId AUDIT = StreamId.of("an audit hold");
  private static final StreamId FORK = StreamId.of("a fork's hold");
  private static final int ENTRIES = 50;

  @TempDir Path tmp;

  @Test
  void pinsAndReleasesAnsweredSurviveKillNine() throws Exception {
    int port = ServerProcess.freePort();
    List<String> args = List.of("--data-dir", tmp.resolve("node").toString());
    ServerProcess server = null;
    try (NettyTransport transport = new NettyTransport()) {
      server = ServerProcess.start(port, args).awaitReady();
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(transport, server.endpoint(), StreamLogOptions.defaults())) {
        for (int i = 0; i < ENTRIES; i++) {
          log.append(List.of(S), ("e" + i).getBytes(StandardCharsets.UTF_8))
              .get(30, TimeUnit.SECONDS);
        }
        assertThat(log.trimStream(S, 10).get(30, TimeUnit.SECONDS)).isEqualTo(10);
        assertThat(log.pinStream(S, AUDIT).get(30, TimeUnit.SECONDS)).isEqualTo(10);
      }
      server.kill9();

      server = ServerProcess.start(port, args).awaitReady();
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(transport, server.endpoint(), StreamLogOptions.defaults())) {
        assertThat(pins(log)).containsExactly(10L);
        assertThat(log.trimStream(S, 30).get(30, TimeUnit.SECONDS))
            .as("held across the kill")
            .isEqualTo(10);
        assertThat(log.pinStream(S, FORK).get(30, TimeUnit.SECONDS)).isEqualTo(10);
        log.unpinStream(S, AUDIT).get(30, TimeUnit.SECONDS);
      }
      server.kill9();

      server = ServerProcess.start(port, args).awaitReady();
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(transport, server.endpoint(), StreamLogOptions.defaults())) {
        assertThat(pins(log)).as("the release answered stays released").containsExactly(10L);
        List<StreamEntry> kept = log.readStream(S, 10, ENTRIES - 1).get(30, TimeUnit.SECONDS);
        assertThat(kept).hasSize(ENTRIES - 10);
        for (int i = 0; i < kept.size(); i++) {
          assertThat(new String(kept.get(i).payload(), StandardCharsets.UTF_8))
              .isEqualTo("e" + (10 + i));
        }
        log.unpinStream(S, FORK).get(30, TimeUnit.SECONDS);
        assertThat(log.trimStream(S, 30).get(30, TimeUnit.SECONDS)).isEqualTo(30);
      }
    } finally {
      if (server != null) {
        server.close(); // the one this test started last (the others were killed)
      }
    }
  }

  private static List<Long> pins(ClusterStreamLog log) throws Exception {
    return log
        .ops()
        .streamTail(log.layout().current().streamChain(S).get(0), List.of(S), false)
        .get(30, TimeUnit.SECONDS)
        .getTails(0)
        .getPinsList()
        .stream()
        .map(StreamPinMsg::getAt)
        .toList();
  }
}
