package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.runtime.stream.AppendResult;
import io.vcorfu.runtime.stream.GlobalEntry;
import io.vcorfu.runtime.stream.StreamEntry;
import io.vcorfu.runtime.stream.StreamLogOptions;
import io.vcorfu.runtime.stream.internal.ClusterStreamLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a node hosting both replica roles, an entry's chain visits the node twice (log replica, then
 * stream replica); the client sends both visits as one message, the node forces them once and
 * commits the log copy itself, and everything survives a restart.
 */
class SingleNodeWritePathTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");

  @TempDir Path tmp;

  @Test
  void eachAppendIsOneChainWriteAndComesBackCommittedAfterRestart() throws Exception {
    List<AppendResult> acked = new ArrayList<>();
    try (InJvmTransport transport = new InJvmTransport()) {
      Map<PayloadCase, FaultRule> counters = new EnumMap<>(PayloadCase.class);
      for (PayloadCase c : List.of(PayloadCase.CHAIN_WRITE, PayloadCase.LOG_WRITE, PayloadCase.STREAM_WRITE,
          PayloadCase.LOG_COMMIT, PayloadCase.STREAM_COMMIT, PayloadCase.LOG_FILL, PayloadCase.STREAM_FILL)) {
        counters.put(c, transport.faults().add(FaultRule.requests().ofCase(c).delay(Duration.ZERO)));
      }
      try (Node node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport)) {
        node.ready().join();
        try (ClusterStreamLog log = ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
          for (int i = 0; i < 20; i++) {
            List<StreamId> streams = i % 5 == 0
                ? List.of(StreamId.of("a"), StreamId.of("b")) : List.of(StreamId.of(i % 2 == 0 ? "a" : "b"));
            acked.add(log.append(streams, ("value-" + i).getBytes(StandardCharsets.UTF_8)).join());
          }
        }
      }
      assertThat(counters.get(PayloadCase.CHAIN_WRITE).hits()).isEqualTo(20);
      for (PayloadCase c : List.of(PayloadCase.LOG_WRITE, PayloadCase.STREAM_WRITE, PayloadCase.LOG_COMMIT,
          PayloadCase.STREAM_COMMIT, PayloadCase.LOG_FILL, PayloadCase.STREAM_FILL)) {
        assertThat(counters.get(c).hits()).as("%s requests", c).isZero();
      }
      transport.faults().clear();

      try (Node node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport)) {
        node.ready().join();
        // A reader that would repair anything uncommitted after a minute: every entry must read as
        // committed straight away, so none is left waiting for a commit message.
        StreamLogOptions noRepair = StreamLogOptions.defaults().withRepairAfter(Duration.ofMinutes(1));
        try (ClusterStreamLog log = ClusterStreamLog.connect(transport, NODE, noRepair)) {
          for (int i = 0; i < acked.size(); i++) {
            AppendResult a = acked.get(i);
            GlobalEntry g = log.readGlobal(a.globalAddress()).get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(new String(g.payload(), StandardCharsets.UTF_8)).isEqualTo("value-" + i);
            for (Map.Entry<StreamId, Long> s : a.streamAddresses().entrySet()) {
              List<StreamEntry> e = log.readStream(s.getKey(), s.getValue(), s.getValue())
                  .get(5, java.util.concurrent.TimeUnit.SECONDS);
              assertThat(e).singleElement().satisfies(x -> assertThat(x.globalAddress()).isEqualTo(a.globalAddress()));
            }
          }
        }
      }
    }
  }

  @Test
  void aChainWriteOvertakenByARepairingReaderAbortsAndTheAppendRetries() throws Exception {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport)) {
      node.ready().join();
      java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
      // The writer's first chain write arrives long after a reader gave up waiting for it.
      transport.faults().add(FaultRule.requests().ofCase(PayloadCase.CHAIN_WRITE)
          .when(r -> first.getAndSet(false)).delay(Duration.ofSeconds(1)));
      StreamLogOptions quickRepair = StreamLogOptions.defaults().withRepairAfter(Duration.ofMillis(50));
      try (ClusterStreamLog writer = ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults());
          ClusterStreamLog reader = ClusterStreamLog.connect(transport, NODE, quickRepair)) {
        StreamId a = StreamId.of("a");
        var pending = writer.append(List.of(a), "late".getBytes(StandardCharsets.UTF_8));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
            .until(() -> reader.tails(List.of(a)).join().streamTails().getOrDefault(a, -1L) >= 0);
        List<StreamEntry> seen = reader.readStream(a, 0, 0).get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(seen).singleElement().satisfies(e -> assertThat(e.isHole()).isTrue());

        AppendResult r = pending.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(r.streamAddresses().get(a)).isEqualTo(1L);
        List<StreamEntry> after = writer.readStream(a, 0, 1).get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(after).hasSize(2);
        assertThat(after.get(0).isHole()).isTrue();
        assertThat(new String(after.get(1).payload(), StandardCharsets.UTF_8)).isEqualTo("late");
      }
    }
  }
}
