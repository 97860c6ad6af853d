package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.netty.NettyTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real server processes on one data directory: the second refuses to start, naming the
 * directory and the process holding it, and touches nothing; the first keeps serving.
 */
class DataDirectoryLockTest {
  private static final StreamId S = StreamId.of("s1");

  @TempDir Path tmp;

  private static AppendResult append(ServerProcess server, String value) {
    try (NettyTransport transport = new NettyTransport();
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, server.endpoint(), StreamLogOptions.defaults())) {
      return log.append(List.of(S), value.getBytes(StandardCharsets.UTF_8)).join();
    }
  }

  @Test
  void aSecondNodeOnTheSameDataDirectoryRefusesToStartAndTheFirstKeepsItsWrites() throws Exception {
    Path data = tmp.resolve("data");
    int firstPort = ServerProcess.freePort();
    try (ServerProcess first = ServerProcess.start(firstPort, data, null).awaitReady()) {
      AppendResult before = append(first, "before");
      byte[] layout = Files.readAllBytes(data.resolve("layout.json"));

      int secondPort = ServerProcess.freePort();
      try (ServerProcess second = ServerProcess.start(secondPort, data, null)) {
        int code = second.awaitExit(Duration.ofSeconds(60));
        assertThat(code).as("exit code; output %s", second.output()).isNotZero();
        String out = ServerProcess.errorLine(second);
        assertThat(out)
            .contains(data.toString())
            .contains(Long.toString(first.pid()))
            .doesNotContain("\tat ");
        assertThat(second.output()).noneMatch(l -> l.contains("ready"));
      }
      assertThat(Files.readAllBytes(data.resolve("layout.json"))).isEqualTo(layout);

      AppendResult after = append(first, "after");
      assertThat(after.globalAddress()).isGreaterThan(before.globalAddress());
      assertThat(after.streamAddresses().get(S)).isEqualTo(before.streamAddresses().get(S) + 1);
    }

    try (ServerProcess again = ServerProcess.start(firstPort, data, null).awaitReady();
        NettyTransport transport = new NettyTransport();
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, again.endpoint(), StreamLogOptions.defaults())) {
      List<StreamEntry> entries = log.readStream(S, 0, 1).join();
      assertThat(entries)
          .extracting(e -> new String(e.payload(), StandardCharsets.UTF_8))
          .containsExactly("before", "after");
    }
  }

  @Test
  void aSecondNodeInTheSameProcessIsRefusedTooAndTheDirectoryIsFreeAfterClose() throws Exception {
    Path data = tmp.resolve("data");
    Endpoint a = new Endpoint("a", 1);
    Endpoint b = new Endpoint("b", 2);
    try (InJvmTransport transport = new InJvmTransport()) {
      try (Node first = Node.start(NodeConfig.durable(a, data), transport)) {
        first.ready().join();
        byte[] layout = Files.readAllBytes(data.resolve("layout.json"));
        assertThatThrownBy(() -> Node.start(NodeConfig.durable(b, data), transport))
            .isInstanceOfSatisfying(
                DataDirectoryInUseException.class,
                e -> {
                  assertThat(e.directory()).isEqualTo(data);
                  assertThat(e.holderPid()).hasValue(ProcessHandle.current().pid());
                })
            .hasMessageContaining(data.toString());
        assertThat(Files.readAllBytes(data.resolve("layout.json"))).isEqualTo(layout);
      }
      try (Node second = Node.start(NodeConfig.durable(b, data), transport)) {
        second.ready().join();
        assertThat(second.endpoint()).isEqualTo(b);
      }
    }
  }
}
