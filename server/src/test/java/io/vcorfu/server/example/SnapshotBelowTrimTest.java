package io.vcorfu.server.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A snapshot view below the stream's trim mark fails with a typed error naming the mark. */
class SnapshotBelowTrimTest {
  private static final Endpoint NODE = new Endpoint("trim-node", 9000);

  @Test
  void snapshotBelowTheTrimMarkIsATypedError() {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport)) {
      node.ready().join();
      StreamId stream = StreamId.of("trimmed-counter");
      List<Long> addresses = new ArrayList<>();
      try (ClusterStreamLog admin =
              ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults());
          VCorfuRuntime writer =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()))) {
        Counter c = writer.objects().open("trimmed-counter", Counter.class);
        for (int i = 0; i < 10; i++) {
          c.add(1);
          addresses.add(admin.tails(List.of(stream)).join().streamLastGlobal().get(stream));
        }
        admin.trimStream(stream, 5).join();
      }
      try (VCorfuRuntime reader =
          VCorfuRuntime.using(
              ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()))) {
        Counter old =
            reader
                .objects()
                .builder("trimmed-counter", Counter.class)
                .asOf(addresses.get(2))
                .open();
        Throwable t = catchThrowable(old::get);
        assertThat(t).isInstanceOf(TrimmedException.class);
        assertThat(((TrimmedException) t).stream()).isEqualTo(stream);
        assertThat(t).hasMessageContaining("trimmed below address 5");
      }
    }
  }
}
