package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.StreamWatch;
import io.vcorfu.client.Tails;
import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.server.AppendClient;
import io.vcorfu.server.AppendIdempotenceProcessTest;
import io.vcorfu.server.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Appends the sequencer node takes whole and drives to every copy ({@code SequencedWrites} with
 * {@code Layout#sequencerDrivesAppends}), through a {@code kill -9} in the middle of them: several
 * clients (one process, each client with a transport and stream log of its own) append distinct
 * values to a three-node process cluster (R = 3) with their appends in flight when the sequencer,
 * or a replica that is not the sequencer, is killed; the killed node is started again on its data
 * and rebuilt. Afterwards every acknowledged value is in the log exactly once, at the address its
 * client was given, and every node's log replica holds it there; no node holds any value committed
 * at two addresses.
 */
class SequencerDrivenAppendsKillTest {
  private static final int CLIENTS = 3;
  private static final int APPENDS = 300;

  @org.junit.jupiter.api.io.TempDir Path tmp;

  /** One ZooKeeper for both runs (neither fails it), each cluster under a name of its own. */
  private static SharedZooKeeper zookeeper;

  @org.junit.jupiter.api.BeforeAll
  static void startZooKeeper() {
    zookeeper = SharedZooKeeper.start();
  }

  @org.junit.jupiter.api.AfterAll
  static void stopZooKeeper() {
    zookeeper.close();
  }

  @ParameterizedTest(name = "kill -9 of the {0}")
  @ValueSource(strings = {"sequencer", "replica"})
  void everyAcknowledgedAppendIsOnEveryReplicaExactlyOnce(String victimRole) throws Exception {
    try (ProcessCluster c =
        ProcessCluster.start(
            zookeeper.process(),
            tmp.resolve("cluster"),
            zookeeper.newClusterName("driven"),
            3,
            List.of())) {
      Layout first = c.newestLayout();
      assertThat(first.sequencerDrivesAppends())
          .as("the sequencer takes appends whole in %s", first)
          .isTrue();
      Endpoint victim =
          victimRole.equals("sequencer") ? first.sequencer() : c.otherThan(first.sequencer());
      Process clients = null;
      List<Path> files = new ArrayList<>();
      // Watchers in this process, each on a client of its own, subscribed before the first append:
      // two follow all four streams the clients append to, one only two of them.
      List<Watcher> watchers =
          List.of(
              Watcher.start(c, STREAMS),
              Watcher.start(c, STREAMS),
              Watcher.start(c, STREAMS.subList(1, 3)));
      try {
        // The clients, each with a transport and stream log of its own, share one process.
        List<String> cmd = ChildJvm.command("256m", AppendClient.class.getName());
        cmd.add(c.endpointList());
        for (int i = 0; i < CLIENTS; i++) {
          Path file = tmp.resolve("client-" + i + ".txt");
          files.add(file);
          cmd.addAll(
              i == 0
                  ? List.of("client" + i, Integer.toString(APPENDS), file.toString())
                  : List.of("client" + i, file.toString()));
        }
        clients =
            new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("clients.log").toFile())
                .start();
        Awaitility.await("a third of the appends acknowledged")
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> acked(files).size() >= CLIENTS * APPENDS / 3);
        c.processOf(victim).kill9();
        System.out.printf(
            "driven: killed the %s %s with %d appends acknowledged%n",
            victimRole, victim, acked(files).size());
        c.awaitLayout(l -> l.removed().contains(victim));
        Awaitility.await("two thirds of the appends acknowledged")
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> acked(files).size() >= 2 * CLIENTS * APPENDS / 3);
        c.restart(victim, false);
        assertThat(clients.waitFor(180, TimeUnit.SECONDS)).as("clients finished").isTrue();
        assertThat(clients.exitValue()).isZero();
      } finally {
        if (clients != null) {
          clients.destroyForcibly();
        }
      }
      try {
        assertWatchersSawEveryCommittedEntryOnceInOrder(c, watchers);
      } finally {
        watchers.forEach(Watcher::close);
      }
      Layout full =
          c.awaitLayout(
              l ->
                  l.allServers().contains(victim)
                      && l.removed().isEmpty()
                      && l.rebuilding().isEmpty()
                      && l.currentSegment().log().stream().allMatch(ch -> ch.size() == 3));

      Map<String, Long> acked = acked(files);
      List<String> failures = new ArrayList<>();
      for (Path f : files) {
        Files.readAllLines(f).stream().filter(l -> l.startsWith("fail ")).forEach(failures::add);
      }
      assertThat(failures).as("appends that failed").isEmpty();
      assertThat(acked).hasSize(CLIENTS * APPENDS);

      Map<String, List<Long>> stored;
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(c.transport(), c.nodes(), StreamLogOptions.defaults())) {
        stored = AppendIdempotenceProcessTest.storedValues(log);
      }
      for (Map.Entry<String, List<Long>> e : stored.entrySet()) {
        assertThat(e.getValue()).as("addresses holding %s", e.getKey()).hasSize(1);
      }
      for (Map.Entry<String, Long> a : acked.entrySet()) {
        assertThat(stored.get(a.getKey()))
            .as("where %s is", a.getKey())
            .containsExactly(a.getValue());
      }
      long tail = acked.values().stream().mapToLong(Long::longValue).max().orElseThrow();
      try (RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
        ReplicaClient ops =
            new ReplicaClient(
                new EpochRpc(rpc, LayoutCache.of(rpc, full), StreamId.of("driven-probe")));
        for (Endpoint node : full.allServers()) {
          Map<Long, ReadResult> held = logOf(ops, node, tail);
          Map<String, List<Long>> committedAt = new HashMap<>();
          held.forEach(
              (address, r) -> {
                if (r.getStatus() == ReadResult.Status.COMMITTED
                    && r.getEntry().getKind() == EntryKind.DATA) {
                  committedAt.computeIfAbsent(text(r), v -> new ArrayList<>()).add(address);
                }
              });
          for (Map.Entry<String, List<Long>> e : committedAt.entrySet()) {
            assertThat(e.getValue())
                .as("addresses at which %s holds %s committed", node, e.getKey())
                .hasSize(1);
          }
          for (Map.Entry<String, Long> a : acked.entrySet()) {
            ReadResult r = held.get(a.getValue());
            assertThat(r.getStatus())
                .as("%s at %d on %s", a.getKey(), a.getValue(), node)
                .isIn(ReadResult.Status.COMMITTED, ReadResult.Status.UNCOMMITTED);
            assertThat(text(r))
                .as("the value at %d on %s", a.getValue(), node)
                .isEqualTo(a.getKey());
          }
        }
      }
    }
  }

  /** The streams {@link AppendClient} appends to. */
  private static final List<StreamId> STREAMS =
      List.of(
          StreamId.of("idempotence-0"),
          StreamId.of("idempotence-1"),
          StreamId.of("idempotence-2"),
          StreamId.of("idempotence-3"));

  /**
   * Every watcher, through the kill and the failover, delivered exactly the committed data entries
   * of its streams, read afresh from the whole cluster: each once (an entry in two watched streams
   * too), in global order, nothing else (nothing uncommitted, no hole).
   */
  private static void assertWatchersSawEveryCommittedEntryOnceInOrder(
      ProcessCluster c, List<Watcher> watchers) throws Exception {
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(c.transport(), c.nodes(), StreamLogOptions.defaults())) {
      for (Watcher w : watchers) {
        TreeMap<Long, String> committed = new TreeMap<>();
        Tails t = log.tails(w.streams).get(30, TimeUnit.SECONDS);
        for (StreamId s : w.streams) {
          long tail = t.streamTails().get(s);
          for (long from = 0; from <= tail; from += 500) {
            for (StreamEntry e :
                log.readStream(s, from, Math.min(tail, from + 499)).get(60, TimeUnit.SECONDS)) {
              if (!e.isHole()) {
                committed.put(e.globalAddress(), new String(e.payload(), StandardCharsets.UTF_8));
              }
            }
          }
        }
        Awaitility.await("a watcher of " + w.streams + " at the log's " + committed.size())
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> w.error.get() != null || w.seen.size() >= committed.size());
        assertThat(w.error.get()).as("the watch's error").isNull();
        List<String> seen =
            w.seen.stream()
                .map(e -> e.globalAddress() + " " + new String(e.payload(), StandardCharsets.UTF_8))
                .toList();
        List<String> expected =
            committed.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList();
        assertThat(seen).as("what a watcher of %s saw", w.streams).isEqualTo(expected);
      }
    }
  }

  /** A subscriber of a {@link StreamWatch} from the start of some streams, keeping what it saw. */
  private static final class Watcher implements Flow.Subscriber<StreamEntry>, AutoCloseable {
    final List<StreamId> streams;
    final ClusterStreamLog log;
    final List<StreamEntry> seen = new CopyOnWriteArrayList<>();
    final AtomicReference<Throwable> error = new AtomicReference<>();
    volatile Flow.Subscription subscription;

    private Watcher(List<StreamId> streams, ClusterStreamLog log) {
      this.streams = streams;
      this.log = log;
    }

    static Watcher start(ProcessCluster c, List<StreamId> streams) {
      Watcher w =
          new Watcher(
              streams,
              ClusterStreamLog.connect(c.transport(), c.nodes(), StreamLogOptions.defaults()));
      StreamWatch.fromGlobal(w.log, streams, 0).subscribe(w);
      return w;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(StreamEntry e) {
      seen.add(e);
    }

    @Override
    public void onError(Throwable t) {
      error.set(t);
    }

    @Override
    public void onComplete() {
      error.set(new AssertionError("a watch never completes by itself"));
    }

    @Override
    public void close() {
      subscription.cancel();
      log.close();
    }
  }

  /** What {@code node}'s log replica holds at addresses 0 to {@code tail}. */
  private static Map<Long, ReadResult> logOf(ReplicaClient ops, Endpoint node, long tail)
      throws Exception {
    Map<Long, ReadResult> held = new HashMap<>();
    for (long from = 0; from <= tail; from += 500) {
      long to = Math.min(tail, from + 499);
      List<ReadResult> results = ops.logRead(node, from, to).get(60, TimeUnit.SECONDS);
      for (int k = 0; k < results.size(); k++) {
        held.put(from + k, results.get(k));
      }
    }
    return held;
  }

  private static String text(ReadResult r) {
    return r.getEntry().getPayload().toString(StandardCharsets.UTF_8);
  }

  private static Map<String, Long> acked(List<Path> files) throws IOException {
    return AppendIdempotenceProcessTest.acked(files);
  }
}
