package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.VCorfuRuntime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Degraded reads: a stream whose only stream replica is gone is read from the log replicas by its
 * backpointers, and gives what the stream replica gave: the same entries at the same addresses,
 * holes included; an object view of it opened afterwards plays back to the same state.
 */
class DegradedReadTest {
  private static final StreamId S = StreamId.of("degraded");
  private static final StreamId OTHER = StreamId.of("degraded-other");

  @TempDir Path tmp;

  /** Log chain [n1, n2], every stream on n3 alone (R = 2 for the log). */
  private static Layout logOnTwoStreamsOnOne(List<Endpoint> nodes) {
    List<Endpoint> log = List.of(nodes.get(0), nodes.get(1));
    List<Endpoint> streams = List.of(nodes.get(2));
    return new Layout(
        ZkCluster.NAME,
        1,
        nodes.get(0),
        List.of(new Segment(0, Segment.OPEN, List.of(log), List.of(streams))),
        2,
        List.of());
  }

  @Test
  void aStreamWhoseOnlyReplicaIsGoneReadsTheSameFromTheLog() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, DegradedReadTest::logOnTwoStreamsOnOne)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Endpoint streamReplica = c.endpoints().get(2);
      ClusterStreamLog log = c.client(c.endpoints().get(0));
      VCorfuRuntime writer = c.runtime(ZkCluster.clientOptions());
      Account account = writer.objects().open("degraded-account", Account.class);
      for (int i = 0; i < 30; i++) {
        append(log, i % 3 == 0 ? List.of(S, OTHER) : List.of(S), "s" + i);
        append(log, List.of(OTHER), "o" + i);
        account.set(100 + i);
        if (i == 10 || i == 20) {
          // A token never written: its slot of S becomes a hole, and its global address too.
          log.ops().token(List.of(S), null, 1).get(10, TimeUnit.SECONDS);
        }
      }
      long tail = log.tails(List.of(S)).get(10, TimeUnit.SECONDS).streamTails().get(S);
      List<StreamEntry> before = log.readStream(S, 0, tail).get(30, TimeUnit.SECONDS);
      assertThat(before).hasSize((int) tail + 1);
      assertThat(before.stream().filter(StreamEntry::isHole).count()).isEqualTo(2);

      c.kill(streamReplica);

      ClusterStreamLog reader = c.client(c.endpoints().get(1));
      List<StreamEntry> after = reader.readStream(S, 0, tail).get(60, TimeUnit.SECONDS);
      assertThat(describe(after)).isEqualTo(describe(before));
      assertThat(reader.degradedReads()).isGreaterThanOrEqualTo(tail + 1);
      List<StreamEntry> middle = reader.readStream(S, 5, 12).get(60, TimeUnit.SECONDS);
      assertThat(describe(middle)).isEqualTo(describe(before.subList(5, 13)));

      VCorfuRuntime fresh = c.runtime(ZkCluster.clientOptions());
      assertThat(fresh.objects().open("degraded-account", Account.class).balance()).isEqualTo(129);
    }
  }

  private static void append(ClusterStreamLog log, List<StreamId> streams, String value)
      throws Exception {
    AppendResult unused =
        log.append(streams, value.getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
  }

  private static List<String> describe(List<StreamEntry> entries) {
    return entries.stream()
        .map(
            e ->
                e.streamAddress()
                    + (e.isHole()
                        ? "=hole"
                        : "="
                            + e.globalAddress()
                            + ":"
                            + new String(e.payload(), StandardCharsets.UTF_8)))
        .toList();
  }
}
