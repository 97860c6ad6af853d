package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Growth in process (real nodes, real ZooKeeper): a fourth node added with {@code grow} while
 * clients append to many streams joins some stream chains as a rebuilding replica, copies them, is
 * promoted (each such chain gives up one other member) and serves log chains of a new segment;
 * every acknowledged write reads back from the grown cluster and every replica of every chain holds
 * the same entries. Killing the growing node mid-copy leaves the cluster as it was, serving.
 */
class GrowTest {
  private static final int STREAMS = 12;

  @TempDir Path tmp;

  record Acked(StreamId stream, String value, long globalAddress, long streamAddress) {}

  @ParameterizedTest(name = "R = {0}")
  @ValueSource(ints = {2, 3})
  void aFourthNodeTakesAShareOfTheChainsWhileClientsAppend(int r) throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, r);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      Layout first = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<Acked> acked = new ArrayList<>();
      try (Writer w = new Writer(c, acked)) {
        w.awaitAcked(60);
        Endpoint d = c.startSpare();
        Layout joined =
            Layout.fromJson(
                new NodeCalls(rpc)
                    .addNode(c.endpoints().get(0), d, true)
                    .get(30, TimeUnit.SECONDS)
                    .getLayoutJson());
        int k = first.currentSegment().stream().size() * r / 4;
        assertThat(joined.isRebuilding(d)).isTrue();
        assertThat(joined.currentSegment().stream()).filteredOn(ch -> ch.contains(d)).hasSize(k);

        Layout grown =
            Awaitility.await(d + " rebuilt and promoted")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(
                    () -> c.agreed().value(),
                    l ->
                        l.allServers().contains(d)
                            && !l.isRebuilding(d)
                            && l.currentSegment().log().size() == 4);
        assertThat(c.node(d).lastRebuild()).as("it copied its chains first").isNotNull();
        assertThat(LayoutChanges.underReplicated(grown)).isEmpty();
        assertThat(grown.currentSegment().stream()).allSatisfy(ch -> assertThat(ch).hasSize(r));
        assertThat(grown.currentSegment().stream()).filteredOn(ch -> ch.contains(d)).hasSize(k);
        assertThat(grown.currentSegment().log()).filteredOn(ch -> ch.contains(d)).hasSize(r);
        int before = w.count();
        w.awaitAcked(before + 60);
      }
      assertEveryAckedReadable(c, acked);
      ReplicaAgreement.assertReplicasAgree(
          c.client(c.endpoints().get(0)), c.agreed().value(), streams());
    }
  }

  @ParameterizedTest(name = "R = {0}")
  @ValueSource(ints = {3})
  void theGrowingNodeKilledMidCopyLeavesTheClusterServingAsBefore(int r) throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, r);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      List<Acked> acked = new ArrayList<>();
      try (Writer w = new Writer(c, acked)) {
        w.awaitAcked(200);
        Endpoint d = c.startSpare(2_000);
        NodeCalls calls = new NodeCalls(rpc);
        calls.addNode(c.endpoints().get(0), d, true).get(30, TimeUnit.SECONDS);
        Awaitility.await(d + " copying")
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(
                () -> calls.ping(d).get(5, TimeUnit.SECONDS).getRebuild(),
                p -> p.getEntriesCopied() > 0 && !p.getDone());
        // A second node cannot grow the cluster while the first one rebuilds.
        Endpoint e = c.startSpare();
        ExecutionException refused =
            org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class,
                () -> calls.addNode(c.endpoints().get(0), e, true).get(30, TimeUnit.SECONDS));
        assertThat(refused.getCause())
            .isInstanceOf(BadRequestException.class)
            .hasMessageContaining("rebuilding");
        c.kill(d);
        Layout after =
            c.awaitLayout("without " + d, l -> l.removed().contains(d) && !l.isRebuilding(d));
        assertThat(after.currentSegment().stream()).allSatisfy(ch -> assertThat(ch).hasSize(r));
        assertThat(after.allServers()).doesNotContain(d);
        int before = w.count();
        w.awaitAcked(before + 40);
      }
      assertEveryAckedReadable(c, acked);
      ReplicaAgreement.assertReplicasAgree(
          c.client(c.endpoints().get(0)), c.agreed().value(), streams());
    }
  }

  private static List<StreamId> streams() {
    List<StreamId> out = new ArrayList<>();
    for (int i = 0; i < STREAMS; i++) {
      out.add(StreamId.of("grow-" + i));
    }
    return out;
  }

  /** Every acknowledged write is in its stream at its address, with its global address. */
  private static void assertEveryAckedReadable(ZkCluster c, List<Acked> acked) {
    Map<StreamId, List<Acked>> byStream = new HashMap<>();
    acked.forEach(a -> byStream.computeIfAbsent(a.stream(), s -> new ArrayList<>()).add(a));
    Awaitility.await("every acknowledged write readable")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              ClusterStreamLog log = c.client(c.endpoints().get(0));
              for (Map.Entry<StreamId, List<Acked>> e : byStream.entrySet()) {
                long last = e.getValue().stream().mapToLong(Acked::streamAddress).max().orElse(-1);
                List<StreamEntry> entries =
                    log.readStream(e.getKey(), 0, last).get(10, TimeUnit.SECONDS);
                assertThat(entries).hasSize((int) last + 1);
                for (Acked a : e.getValue()) {
                  StreamEntry got = entries.get((int) a.streamAddress());
                  assertThat(got.isHole()).as("slot of %s", a).isFalse();
                  assertThat(new String(got.payload(), StandardCharsets.UTF_8))
                      .isEqualTo(a.value());
                  assertThat(got.globalAddress()).isEqualTo(a.globalAddress());
                }
              }
            });
  }

  /**
   * One client thread appending to {@value #STREAMS} streams in turn, recording what was
   * acknowledged; a failed append is retried with a fresh client. Stops when closed, after two
   * minutes or 100,000 appends, whichever comes first.
   */
  private static final class Writer implements AutoCloseable {
    private final List<Acked> acked;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    Writer(ZkCluster c, List<Acked> acked) {
      this.acked = acked;
      List<StreamId> streams = streams();
      this.thread =
          new Thread(
              () -> {
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                ClusterStreamLog log = null;
                int attempt = 0;
                for (int i = 0; i < 100_000 && !stop.get(); i++) {
                  if (System.nanoTime() - deadline > 0) {
                    return;
                  }
                  StreamId s = streams.get(i % streams.size());
                  String value = "w" + i + "-" + attempt++;
                  try {
                    if (log == null) {
                      log = c.client(c.endpoints().get(0));
                    }
                    AppendResult r =
                        log.append(List.of(s), value.getBytes(StandardCharsets.UTF_8))
                            .get(10, TimeUnit.SECONDS);
                    synchronized (acked) {
                      acked.add(new Acked(s, value, r.globalAddress(), r.streamAddresses().get(s)));
                    }
                  } catch (Exception e) {
                    log = null;
                  }
                }
              },
              "grow-writer");
      thread.setDaemon(true);
      thread.start();
    }

    int count() {
      synchronized (acked) {
        return acked.size();
      }
    }

    void awaitAcked(int n) {
      Awaitility.await(n + " appends acknowledged")
          .atMost(Duration.ofSeconds(60))
          .until(() -> count() >= n || !thread.isAlive());
      assertThat(count()).as("appends kept failing").isGreaterThanOrEqualTo(n);
    }

    @Override
    public void close() {
      stop.set(true);
      try {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
