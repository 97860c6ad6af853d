package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.server.cli.VcorfuCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Degraded mode against real processes: {@code cluster init --nodes n0 --stream-nodes n1} puts the
 * log and the sequencer on n0 and the one stream chain on n1; {@code kill -9} of n1 leaves the
 * chain empty ({@code cluster status} says so), appends and reads go on through the log; {@code
 * cluster add-node} of n2 hands it the chain, and every acknowledged write reads back from it.
 */
class DegradedProcessTest {
  private static final StreamId STREAM = StreamId.of("degraded-processes");

  @TempDir Path tmp;

  @Test
  void theOnlyStreamReplicaKilledAppendsGoOnAndASpareTakesTheChainUp() throws Exception {
    try (ProcessCluster cluster = ProcessCluster.startWithOneStreamNode(tmp, "degraded-procs")) {
      List<Endpoint> nodes = cluster.nodes();
      Endpoint n1 = nodes.get(1);
      Endpoint n2 = nodes.get(2);
      Layout first = cluster.awaitLayout(l -> l.epoch() >= 1);
      assertThat(first.currentSegment().log()).containsExactly(List.of(nodes.get(0)));
      assertThat(first.currentSegment().stream()).containsExactly(List.of(n1));
      List<Acked> acked = new ArrayList<>();
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(
              cluster.transport(),
              nodes,
              StreamLogOptions.defaults()
                  .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2))))) {
        append(log, acked, 30);

        cluster.processOf(n1).kill9();
        cluster.awaitLayout(l -> l.currentSegment().stream().get(0).isEmpty());
        assertThat(cli("cluster", "status", "--endpoint", ProcessCluster.join(nodes)))
            .contains("stream chain 0 (no replica");
        append(log, acked, 60);
        assertEveryAckedReadable(log, acked);

        assertThat(cli("cluster", "add-node", "--endpoint", nodes.get(0).toString(), n2.toString()))
            .contains("added " + n2);
        Layout takenUp =
            cluster.awaitLayout(l -> l.currentSegment().stream().get(0).equals(List.of(n2)));
        assertThat(cli("cluster", "status", "--endpoint", ProcessCluster.join(nodes)))
            .contains(
                "stream chain 0 "
                    + n2
                    + " (taken up at epoch "
                    + takenUp.streamChainSince(0)
                    + ")");
        append(log, acked, 90);
        Awaitility.await(n2 + " serves the stream's reads")
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(
                () -> {
                  long last = acked.get(acked.size() - 1).streamAddress();
                  return log.ops().streamRead(n2, STREAM, 0, last).get(5, TimeUnit.SECONDS).size()
                      == last + 1;
                });
        assertEveryAckedReadable(log, acked);
      }
    }
  }

  private record Acked(long streamAddress, String value) {}

  /** Appends until {@code total} appends were acknowledged, recording where each landed. */
  private static void append(ClusterStreamLog log, List<Acked> acked, int total) throws Exception {
    while (acked.size() < total) {
      String value = "v" + acked.size();
      AppendResult r =
          log.append(List.of(STREAM), value.getBytes(StandardCharsets.UTF_8))
              .get(30, TimeUnit.SECONDS);
      acked.add(new Acked(r.streamAddresses().get(STREAM), value));
    }
  }

  /** Every acknowledged append is at its stream address (an aborted attempt leaves a hole). */
  private static void assertEveryAckedReadable(ClusterStreamLog log, List<Acked> acked)
      throws Exception {
    long last = acked.get(acked.size() - 1).streamAddress();
    List<StreamEntry> entries = log.readStream(STREAM, 0, last).get(60, TimeUnit.SECONDS);
    assertThat(entries).hasSize((int) last + 1);
    for (Acked a : acked) {
      StreamEntry e = entries.get((int) a.streamAddress());
      assertThat(e.isHole()).as("slot of %s", a).isFalse();
      assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(a.value());
    }
  }

  private static String cli(String... args) {
    StringWriter out = new StringWriter();
    CommandLine cl = VcorfuCli.newCommandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(out));
    cl.execute(args);
    return out.toString();
  }
}
