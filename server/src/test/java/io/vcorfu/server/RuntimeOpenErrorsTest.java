package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.collections.SMRMap;
import io.vcorfu.collections.SMRRangeMap;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.runtime.ObjectOpenException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * What an application sees when it gets things wrong: a runtime connected to a port nothing listens
 * on fails with a typed error saying so; a snapshot beyond the log's tail is refused; a range map
 * opens typed.
 */
class RuntimeOpenErrorsTest {
  @Test
  void connectingToADeadPortFailsWithATypedErrorThatSaysSo() throws Exception {
    int dead;
    try (ServerSocket s = new ServerSocket(0)) {
      dead = s.getLocalPort();
    }
    String endpoint = "127.0.0.1:" + dead;
    assertThatThrownBy(
            () -> {
              try (VCorfuRuntime rt = VCorfuRuntime.connect(endpoint)) {
                SMRMap.<String, String>open(rt, "m").put("k", "v");
              }
            })
        .isInstanceOf(VCorfuException.class)
        .hasMessageContaining(endpoint);
  }

  @Test
  void aSnapshotBeyondTheTailIsRefusedAndRangeMapsOpenTyped() {
    try (NettyTransport transport = new NettyTransport();
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      try (VCorfuRuntime rt = VCorfuRuntime.connect(node.endpoint().toString())) {
        SMRRangeMap<Long, String> ranges = SMRRangeMap.open(rt, "ranges");
        ranges.put(1L, "one"); // at global address 1, after the name's registration at 0
        assertThat(ranges.get(1L)).isEqualTo("one");
        assertThatThrownBy(
                () -> rt.objects().builder("ranges", SMRRangeMap.class).asOf(1_000).open())
            .isInstanceOf(ObjectOpenException.class)
            .hasMessageContaining("asOf(1000) is beyond the log's tail");
        assertThat(
                ((SMRRangeMap<?, ?>)
                        rt.objects().builder("ranges", SMRRangeMap.class).asOf(1).open())
                    .size())
            .isEqualTo(1);
      }
    }
  }
}
