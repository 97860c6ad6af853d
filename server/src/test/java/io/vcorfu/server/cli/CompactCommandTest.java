package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vcorfu cluster compact} against a durable node on loopback: a pass runs and says what the
 * node's segment files took before and after; a share outside (0, 1) is refused with one line and
 * exit code 2, nothing asked of any node.
 */
class CompactCommandTest {
  @TempDir Path tmp;

  @Test
  void aPassReportsEachNodeAndABadShareIsRefused() {
    try (NettyTransport transport = new NettyTransport();
        Node node =
            Node.start(
                NodeConfig.durable(new Endpoint("127.0.0.1", 0), tmp.resolve("data")), transport)) {
      node.ready().join();
      String endpoint = node.endpoint().toString();
      assertThat(CliRun.of("log", "append", "--endpoint", endpoint, "--stream", "s", "v").code())
          .isZero();

      CliRun pass = CliRun.of("cluster", "compact", "--endpoint", endpoint);
      assertThat(pass.code()).as(pass.err()).isZero();
      assertThat(pass.out())
          .startsWith(endpoint + ": 0 segment(s) compacted, segment files ")
          .contains(" MiB -> ");

      CliRun json = CliRun.of("cluster", "compact", "--endpoint", endpoint, "--output", "json");
      assertThat(json.code()).isZero();
      assertThat(json.out()).contains("\"segmentsCompacted\":0").contains("\"fileBytesAfter\"");

      CliRun bad = CliRun.of("cluster", "compact", "--endpoint", endpoint, "--below", "1.5");
      assertThat(bad.code()).isEqualTo(2);
      assertThat(bad.out()).isEmpty();
      assertThat(bad.err())
          .isEqualTo(
              "vcorfu cluster compact: --below must lie between 0 and 1 (exclusive), not 1.5");
    }
  }
}
