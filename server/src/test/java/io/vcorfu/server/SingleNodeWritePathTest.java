package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.SequencedWriteRequest;
import io.vcorfu.protocol.proto.TokenRequest;
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
 * On a one-node layout the node is the sequencer and both replicas of every entry: the client sends
 * each append as one sequenced write, the node issues the token, writes both copies, forces them
 * once and commits them itself, and everything survives a restart. A step the node cannot write is
 * handled by the client exactly as on the multi-node path.
 */
class SingleNodeWritePathTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");

  @TempDir Path tmp;

  @Test
  void eachAppendIsOneSequencedWriteAndComesBackCommittedAfterRestart() throws Exception {
    List<AppendResult> acked = new ArrayList<>();
    try (InJvmTransport transport = new InJvmTransport()) {
      Map<PayloadCase, FaultRule> counters = new EnumMap<>(PayloadCase.class);
      List<PayloadCase> others =
          List.of(
              PayloadCase.TOKEN,
              PayloadCase.CHAIN_WRITE,
              PayloadCase.LOG_WRITE,
              PayloadCase.STREAM_WRITE,
              PayloadCase.LOG_COMMIT,
              PayloadCase.STREAM_COMMIT,
              PayloadCase.LOG_FILL,
              PayloadCase.STREAM_FILL);
      List<PayloadCase> all = new ArrayList<>(others);
      all.add(PayloadCase.SEQUENCED_WRITE);
      for (PayloadCase c : all) {
        counters.put(
            c, transport.faults().add(FaultRule.requests().ofCase(c).delay(Duration.ZERO)));
      }
      try (Node node =
          Node.start(
              NodeConfig.durable(NODE, tmp.resolve("data"))
                  .withLogRetention(java.time.Duration.ofMinutes(10)),
              transport)) {
        node.ready().join();
        try (ClusterStreamLog log =
            ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
          for (int i = 0; i < 20; i++) {
            List<StreamId> streams =
                i % 5 == 0
                    ? List.of(StreamId.of("a"), StreamId.of("b"))
                    : List.of(StreamId.of(i % 2 == 0 ? "a" : "b"));
            acked.add(log.append(streams, ("value-" + i).getBytes(StandardCharsets.UTF_8)).join());
          }
        }
      }
      assertThat(counters.get(PayloadCase.SEQUENCED_WRITE).hits()).isEqualTo(20);
      for (PayloadCase c : others) {
        assertThat(counters.get(c).hits()).as("%s requests", c).isZero();
      }
      transport.faults().clear();

      try (Node node =
          Node.start(
              NodeConfig.durable(NODE, tmp.resolve("data"))
                  .withLogRetention(java.time.Duration.ofMinutes(10)),
              transport)) {
        node.ready().join();
        // A reader that would repair anything uncommitted after a minute: every entry must read as
        // committed straight away, so none is left waiting for a commit message.
        StreamLogOptions noRepair =
            StreamLogOptions.defaults().withRepairAfter(Duration.ofMinutes(1));
        try (ClusterStreamLog log = ClusterStreamLog.connect(transport, NODE, noRepair)) {
          for (int i = 0; i < acked.size(); i++) {
            AppendResult a = acked.get(i);
            GlobalEntry g =
                log.readGlobal(a.globalAddress()).get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(new String(g.payload(), StandardCharsets.UTF_8)).isEqualTo("value-" + i);
            for (Map.Entry<StreamId, Long> s : a.streamAddresses().entrySet()) {
              List<StreamEntry> e =
                  log.readStream(s.getKey(), s.getValue(), s.getValue())
                      .get(5, java.util.concurrent.TimeUnit.SECONDS);
              assertThat(e)
                  .singleElement()
                  .satisfies(x -> assertThat(x.globalAddress()).isEqualTo(a.globalAddress()));
            }
          }
        }
      }
    }
  }

  @Test
  void aSequencedWriteWhoseSlotAReaderFilledFirstAbortsAndTheAppendRetries() throws Exception {
    try (InJvmTransport transport = new InJvmTransport();
        Node node =
            Node.start(
                NodeConfig.durable(NODE, tmp.resolve("data"))
                    .withLogRetention(java.time.Duration.ofMinutes(10)),
                transport)) {
      node.ready().join();
      try (ClusterStreamLog writer =
          ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
        StreamId a = StreamId.of("a");
        // A repairing reader has already turned global address 0 into a hole on the log replica:
        // the node's write of the entry it sequences there fails, and the client decides it.
        writer.ops().logFill(NODE, 0, true, 7L).get(5, java.util.concurrent.TimeUnit.SECONDS);

        AppendResult r =
            writer
                .append(List.of(a), "late".getBytes(StandardCharsets.UTF_8))
                .get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(r.globalAddress()).isEqualTo(1L);
        assertThat(r.streamAddresses().get(a)).isEqualTo(1L);
        List<StreamEntry> after =
            writer.readStream(a, 0, 1).get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(after).hasSize(2);
        assertThat(after.get(0).isHole()).as("the aborted entry's stream slot").isTrue();
        assertThat(new String(after.get(1).payload(), StandardCharsets.UTF_8)).isEqualTo("late");
        assertThat(writer.readGlobal(0).get(5, java.util.concurrent.TimeUnit.SECONDS).isHole())
            .isTrue();
      }
    }
  }

  @Test
  void aSequencedWriteIsRefusedByANodeWhoseLayoutSpreadsTheChains() {
    Endpoint other = Endpoint.parse("other:9000");
    Layout spread =
        new Layout(
            "c1",
            1,
            NODE,
            List.of(new Segment(0, -1, List.of(List.of(NODE)), List.of(List.of(other)))));
    assertThat(spread.sequencerHostsEveryChain()).isFalse();
    assertThat(Layout.singleNode(NODE, "c1").sequencerHostsEveryChain()).isTrue();
    SequencedWriteRequest request =
        SequencedWriteRequest.newBuilder()
            .setToken(TokenRequest.newBuilder().addStreams(StreamId.of("a").toMsg()).setCount(1))
            .build();
    // Refused before the sequencer or the storage is touched (neither exists here).
    assertThatThrownBy(
            () -> SequencedWrites.write(spread, null, null, null, null, null, null, request))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("places chains on other nodes");
    SequencedWriteRequest two =
        request.toBuilder().setToken(request.getToken().toBuilder().setCount(2)).build();
    assertThatThrownBy(
            () ->
                SequencedWrites.write(
                    Layout.singleNode(NODE, "c1"), null, null, null, null, null, null, two))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("asks for 2 tokens");
  }

  @Test
  // The try block holds the resource open for its duration; the body does not name it.
  @SuppressWarnings("try")
  void aChainWriteOvertakenByARepairingReaderAbortsAndTheAppendRetries() throws Exception {
    // The sequencer on its own node, both replicas on another: appends take a token, then send
    // both visits to the replica node as one chain write.
    Endpoint sequencer = Endpoint.parse("sequencer:9000");
    String layout =
        """
        {"clusterId": "test", "epoch": 1, "sequencer": "%s",
         "segments": [{"start": 0, "end": -1, "log": [["%s"]], "stream": [["%s"]]}]}
        """
            .formatted(sequencer, NODE, NODE);
    try (InJvmTransport transport = new InJvmTransport();
        InProcessCluster cluster =
            InProcessCluster.start(transport, tmp, layout, tmp.resolve("data"))) {
      java.util.concurrent.atomic.AtomicBoolean first =
          new java.util.concurrent.atomic.AtomicBoolean(true);
      // The writer's first chain write arrives long after a reader gave up waiting for it.
      transport
          .faults()
          .add(
              FaultRule.requests()
                  .ofCase(PayloadCase.CHAIN_WRITE)
                  .when(r -> first.getAndSet(false))
                  .delay(Duration.ofSeconds(1)));
      StreamLogOptions quickRepair =
          StreamLogOptions.defaults().withRepairAfter(Duration.ofMillis(50));
      try (ClusterStreamLog writer =
              ClusterStreamLog.connect(transport, sequencer, StreamLogOptions.defaults());
          ClusterStreamLog reader = ClusterStreamLog.connect(transport, sequencer, quickRepair)) {
        StreamId a = StreamId.of("a");
        var pending = writer.append(List.of(a), "late".getBytes(StandardCharsets.UTF_8));
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> reader.tails(List.of(a)).join().streamTails().getOrDefault(a, -1L) >= 0);
        List<StreamEntry> seen =
            reader.readStream(a, 0, 0).get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(seen).singleElement().satisfies(e -> assertThat(e.isHole()).isTrue());

        AppendResult r = pending.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(r.streamAddresses().get(a)).isEqualTo(1L);
        List<StreamEntry> after =
            writer.readStream(a, 0, 1).get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(after).hasSize(2);
        assertThat(after.get(0).isHole()).isTrue();
        assertThat(new String(after.get(1).payload(), StandardCharsets.UTF_8)).isEqualTo("late");
      }
    }
  }
}
