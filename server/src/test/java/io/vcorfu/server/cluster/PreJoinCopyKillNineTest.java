package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cluster.AckedAppends.Acked;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real processes: a node that returns wiped after the manager removed it is killed with {@code kill
 * -9} in the middle of its copy before joining ({@link PreJoinCopy}), started again on what that
 * copy left on its disk, and must then join, be promoted and hold every acknowledged entry exactly
 * once, as its chains' other replicas do. The copy is held to 1 MiB/s ({@code --rebuild-rate-mb 1})
 * so that the kill falls inside it whatever the machine's speed.
 */
class PreJoinCopyKillNineTest {
  private static final StreamId STREAM = StreamId.of("pre-join-kill");

  /** Each value's size: 96 of them make a copy of at least six seconds at 1 MiB/s. */
  private static final int VALUE_BYTES = 64 * 1024;

  private static final int BIG_VALUES = 96;

  /**
   * On the victim's disk before the kill: a fresh node's files (about 1 MiB) and a part of what its
   * copy installs, well short of all of it.
   */
  private static final long KILL_AFTER_BYTES = 5L * 1024 * 1024 / 2;

  @TempDir Path tmp;

  private ProcessCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aNodeKilledInItsCopyBeforeJoiningRejoinsOnWhatTheCopyLeftAndStoresEachEntryOnce()
      throws Exception {
    cluster = ProcessCluster.start(tmp, "prejoinkill", 3, List.of("--rebuild-rate-mb", "1"));
    List<Acked> acked = new ArrayList<>();
    append(acked, BIG_VALUES, VALUE_BYTES);
    Endpoint victim = cluster.otherThan(cluster.newestLayout().sequencer());
    cluster.processOf(victim).kill9();
    cluster.awaitLayout(l -> l.removed().contains(victim));
    append(acked, 20, 100);

    ServerProcess copying = cluster.startAgain(victim, true, List.of("--rebuild-rate-mb", "1"));
    Path dir = cluster.dataDir(victim);
    Awaitility.await("the returning node copying before it joins")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                said(copying, "before it serves, it copies")
                    && bytesUnder(dir) >= KILL_AFTER_BYTES);
    long onDisk = bytesUnder(dir);
    copying.kill9();
    System.out.println(
        "PreJoinCopyKillNineTest: killed the copying node with " + onDisk + " bytes on its disk");
    assertThat(said(copying, "before joining ("))
        .as("the copy was still running when the node was killed: %s", copying.output())
        .isFalse();

    ServerProcess back = cluster.startAgain(victim, false, List.of()).awaitReady();
    String copied =
        back.output().stream().filter(l -> l.contains("before joining (")).findFirst().orElse(null);
    assertThat(copied).as("its copy before joining ran again").isNotNull();
    System.out.println("PreJoinCopyKillNineTest: " + copied);
    java.util.regex.Matcher slots =
        java.util.regex.Pattern.compile("copied (\\d+) slots").matcher(copied);
    assertThat(slots.find()).isTrue();
    assertThat(Long.parseLong(slots.group(1)))
        .as("slots copied again: what the killed copy installed is kept")
        .isLessThan(acked.size());
    cluster.awaitLayout(l -> ProcessCluster.fullStrengthWith(l, victim));
    append(acked, 20, 100);
    assertEachAckedOnce(acked);
  }

  private static boolean said(ServerProcess p, String words) {
    return p.output().stream().anyMatch(l -> l.contains(words));
  }

  private static long bytesUnder(Path dir) throws java.io.IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      long sum = 0;
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        try {
          sum += Files.size(f);
        } catch (java.nio.file.NoSuchFileException gone) {
          // a file the node replaced while we walked
        }
      }
      return sum;
    }
  }

  /** Appends {@code count} values of {@code bytes} bytes, each retried until acknowledged. */
  private void append(List<Acked> acked, int count, int bytes) {
    AckedAppends.appendUntil(
        this::client, STREAM, acked, acked.size() + count, "v", id -> value(id, bytes));
  }

  /** {@code id}, a newline, then filler up to {@code bytes}. */
  private static byte[] value(String id, int bytes) {
    byte[] head = (id + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] v = Arrays.copyOf(head, Math.max(bytes, head.length));
    Arrays.fill(v, head.length, v.length, (byte) (id.hashCode() & 0x7f));
    return v;
  }

  private static String idOf(byte[] payload) {
    String s = new String(payload, 0, Math.min(payload.length, 32), StandardCharsets.UTF_8);
    return s.substring(0, s.indexOf('\n'));
  }

  /**
   * Every acknowledged value reads back whole at the addresses its append returned, no value is
   * stored at two addresses of the stream, and every replica of every chain holds the same entries.
   */
  private void assertEachAckedOnce(List<Acked> acked) {
    AckedAppends.awaitReadBack(
        "every acknowledged write readable once",
        this::client,
        STREAM,
        acked,
        (log, entries) -> {
          Map<String, Integer> seen = new HashMap<>();
          for (StreamEntry e : entries) {
            if (!e.isHole()) {
              seen.merge(idOf(e.payload()), 1, Integer::sum);
            }
          }
          for (Acked a : acked) {
            StreamEntry e = entries.get((int) a.streamAddress());
            assertThat(e.isHole()).as("slot of %s", a).isFalse();
            assertThat(e.globalAddress()).isEqualTo(a.globalAddress());
            assertThat(idOf(e.payload())).isEqualTo(a.value());
            assertThat(e.payload().length).as("length of %s", a).isEqualTo(length(a));
            assertThat(seen.get(a.value())).as("copies of %s in the stream", a).isEqualTo(1);
          }
          ReplicaAgreement.assertReplicasAgree(log, cluster.newestLayout(), List.of(STREAM));
        });
  }

  /** The first {@link #BIG_VALUES} values are big, the rest small (see the test). */
  private static int length(Acked a) {
    int n = Integer.parseInt(a.value().substring(1, a.value().indexOf('-')));
    return n < BIG_VALUES ? VALUE_BYTES : 100;
  }

  private ClusterStreamLog client() throws Exception {
    Layout l = cluster.newestLayout();
    Endpoint seed = l.allServers().iterator().next();
    return ClusterStreamLog.connect(
        cluster.transport(),
        seed,
        StreamLogOptions.defaults()
            .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2))));
  }
}
