package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.server.cluster.AckedAppends.Acked;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three node processes, R = 3, with a ZooKeeper session timeout of 4 s (the least a ZooKeeper with
 * the default tick of 2 s grants): two of them are stopped (SIGSTOP, so that the third never sees
 * two of three answering), then killed with {@code kill -9}. Their sessions are not closed: they
 * expire, a session timeout (and up to a tick) after ZooKeeper last heard them. The third must be
 * alone in the layout within the failure timeout, the session timeout and a few seconds, serve
 * every acknowledged write through itself alone, and take new appends.
 */
class LastNodeStandingProcessTest {
  private static final StreamId STREAM = StreamId.of("standing");
  private static final Duration SESSION = Duration.ofSeconds(4);

  @TempDir Path tmp;

  @Test
  void theLastNodeStandingAfterTwoKillNinesServesEveryAcknowledgedWrite() throws Exception {
    try (ProcessCluster cluster =
        ProcessCluster.start(
            tmp, "standing", 3, List.of("--zookeeper-session-ms", "" + SESSION.toMillis()))) {
      Layout started = cluster.awaitLayout(l -> l.epoch() >= 2);
      assertThat(started.replication()).isEqualTo(3);
      Endpoint survivor = cluster.nodes().get(2);
      List<Acked> acked = new ArrayList<>();
      appendUntil(cluster, survivor, acked, 40);

      List<Endpoint> dying = cluster.nodes().stream().filter(e -> !e.equals(survivor)).toList();
      for (Endpoint e : dying) {
        cluster.processOf(e).pause();
      }
      for (Endpoint e : dying) {
        cluster.processOf(e).kill9();
      }
      long killed = System.nanoTime();

      Layout alone =
          Awaitility.await("a layout of " + survivor + " alone")
              .atMost(Duration.ofMillis(1500).plus(SESSION).plusSeconds(2 + 6))
              .pollInterval(Duration.ofMillis(100))
              .ignoreExceptions()
              .until(cluster::newestLayout, l -> l.allServers().equals(Set.of(survivor)));
      System.out.printf(
          "LastNodeStandingProcessTest: %s alone at epoch %d, %d ms after the kills%n",
          survivor, alone.epoch(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed));
      assertThat(alone.sequencer()).isEqualTo(survivor);
      assertThat(alone.removed()).containsExactlyInAnyOrderElementsOf(dying);

      assertEveryAckedReadable(cluster, survivor, acked);
      appendUntil(cluster, survivor, acked, 60);
      assertEveryAckedReadable(cluster, survivor, acked);
    }
  }

  private static ClusterStreamLog client(ProcessCluster cluster, Endpoint seed) {
    return ClusterStreamLog.connect(
        cluster.transport(),
        seed,
        StreamLogOptions.defaults()
            .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2))));
  }

  /** Appends through {@code seed} until {@code total} appends are acknowledged. */
  private static void appendUntil(
      ProcessCluster cluster, Endpoint seed, List<Acked> acked, int total) {
    AckedAppends.appendUntil(() -> client(cluster, seed), STREAM, acked, total, "s");
  }

  private static void assertEveryAckedReadable(
      ProcessCluster cluster, Endpoint seed, List<Acked> acked) {
    AckedAppends.awaitReadBack(
        "every acknowledged write readable through " + seed,
        () -> client(cluster, seed),
        STREAM,
        acked,
        (log, entries) -> {
          assertThat(entries)
              .hasSize((int) acked.stream().mapToLong(Acked::streamAddress).max().orElse(-1) + 1);
          for (Acked a : acked) {
            StreamEntry e = entries.get((int) a.streamAddress());
            assertThat(e.isHole()).as("slot of %s", a).isFalse();
            assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(a.value());
            assertThat(e.globalAddress()).isEqualTo(a.globalAddress());
          }
        });
  }
}
