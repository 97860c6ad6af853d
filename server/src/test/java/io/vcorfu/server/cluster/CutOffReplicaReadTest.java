package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.PingResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica cut off from the other nodes and from ZooKeeper just after it confirmed its layout
 * still believes it may serve until its layout lease (2 s here) runs out. The manager removes it,
 * and the sequencer, which stays the sequencer, serves the new epoch at once, without waiting for
 * that lease. A client still on the old layout that reaches only the cut-off replica and the
 * sequencer must not read a stream or an address as if a write the new epoch acknowledged had not
 * happened: every read's bound comes from the sequencer, which refuses the old epoch.
 */
class CutOffReplicaReadTest {
  private static final Duration LAYOUT_LEASE = Duration.ofSeconds(2);

  @TempDir Path tmp;

  @Test
  void aClientOnTheOldLayoutReadsNoStaleValueFromACutOffReplicaThatStillHoldsItsLease()
      throws Exception {
    try (ZkCluster c = ZkCluster.startLinked(tmp, 3, 3, cfg -> cfg.withLayoutLease(LAYOUT_LEASE))) {
      Layout first = c.awaitStarted();
      c.awaitAdopted(first.epoch());
      Endpoint sequencer = first.sequencer();
      // The stream's reads go to the last replica of its chain: that is the node cut off.
      StreamId s = stream(first);
      List<Endpoint> chain = first.streamChain(s);
      Endpoint cutOff = chain.get(chain.size() - 1);
      ClusterStreamLog writer = c.client(sequencer);
      writer.append(List.of(s), bytes("before")).get(30, TimeUnit.SECONDS);

      // Connected through the node that will be cut off, it holds the layout of before the cut.
      ClusterStreamLog reader = c.client(cutOff);
      RpcClient pinger = c.transport().newClient(ClientOptions.defaults());
      try (pinger) {
        assertThat(payloads(reader.readStream(s, 0, 10).get(10, TimeUnit.SECONDS)))
            .containsExactly("before");

        long cutAt = c.faults().cutOffJustAfterItConfirmsItsLayout(cutOff);
        Layout next =
            c.awaitLayout("a layout without " + cutOff, l -> l.removed().contains(cutOff));
        assertThat(next.sequencer()).isEqualTo(sequencer);
        Awaitility.await(sequencer + " adopts epoch " + next.epoch())
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(5))
            .until(() -> c.node(sequencer).layout().epoch() >= next.epoch());
        AppendResult after = writer.append(List.of(s), bytes("after")).get(30, TimeUnit.SECONDS);
        long ackedAt = System.nanoTime();
        PingResponse ping = new NodeCalls(pinger).ping(cutOff).get(5, TimeUnit.SECONDS);
        System.out.printf(
            "  cut at 0 ms; epoch %d without %s; write acknowledged at %d ms; the cut-off replica"
                + " then: epoch %d, %s%n",
            next.epoch(),
            cutOff,
            TimeUnit.NANOSECONDS.toMillis(ackedAt - cutAt),
            ping.getEpoch(),
            ping.getServing() ? "serving" : "not serving (" + ping.getNotServingReason() + ")");

        assertThat(reader.layout().current().epoch())
            .as("the reader still holds the layout of before the cut")
            .isLessThan(next.epoch());
        assertThat(payloads(reader.readStream(s, 0, 10).get(20, TimeUnit.SECONDS)))
            .as("the stream as the old-layout client reads it")
            .containsExactly("before", "after");
        GlobalEntry entry = reader.readGlobal(after.globalAddress()).get(20, TimeUnit.SECONDS);
        assertThat(entry.isHole())
            .as("address %d read by the old-layout client", after.globalAddress())
            .isFalse();
        assertThat(new String(entry.payload(), StandardCharsets.UTF_8)).isEqualTo("after");
      } finally {
        c.faults().reconnectToZooKeeper(cutOff);
        c.faults().heal(cutOff);
      }
    }
  }

  /** A stream whose chain's last replica, where its reads go, is not {@code layout}'s sequencer. */
  private static StreamId stream(Layout layout) {
    for (int i = 0; ; i++) {
      StreamId s = StreamId.of("s" + i);
      List<Endpoint> chain = layout.streamChain(s);
      if (!chain.get(chain.size() - 1).equals(layout.sequencer())) {
        return s;
      }
    }
  }

  private static List<String> payloads(List<StreamEntry> entries) {
    return entries.stream()
        .filter(e -> !e.isHole())
        .map(e -> new String(e.payload(), StandardCharsets.UTF_8))
        .toList();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
