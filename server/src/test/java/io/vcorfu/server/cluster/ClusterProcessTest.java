package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cli.CliRun;
import io.vcorfu.server.cluster.AckedAppends.Acked;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real processes: {@code vcorfu zookeeper} (one for the class), three {@code vcorfu server} cluster
 * nodes, {@code vcorfu cluster init}; then {@code kill -9} and SIGSTOP/SIGCONT of nodes while this
 * JVM appends. Checks that the cluster keeps serving, that every acknowledged write reads back at
 * its addresses, and that a paused sequencer, replaced while paused and resumed, gives no client a
 * stale tail.
 */
class ClusterProcessTest {
  private static final StreamId STREAM = StreamId.of("processes");

  @TempDir Path tmp;

  private ProcessCluster cluster;
  private NettyTransport transport;

  /** One ZooKeeper for the class's tests (none fails it), each cluster under a name of its own. */
  private static SharedZooKeeper zookeeper;

  @BeforeAll
  static void startZooKeeper() {
    zookeeper = SharedZooKeeper.start();
  }

  @AfterAll
  static void stopZooKeeper() {
    zookeeper.close();
  }

  @BeforeEach
  void startCluster() {
    cluster =
        ProcessCluster.start(
            zookeeper.process(), tmp, zookeeper.newClusterName("procs"), 3, List.of());
    transport = cluster.transport();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void killNineOfAReplicaAndThenOfTheSequencerLosesNoAcknowledgedWrite() throws Exception {
    List<Acked> acked = new ArrayList<>();
    appendUntil(acked, 50);
    Layout before = newestLayout();
    ServerProcess replica = processOf(otherThan(before.sequencer()));
    replica.kill9();
    awaitLayout(l -> l.removed().contains(replica.endpoint()));
    appendUntil(acked, 100);
    ServerProcess sequencer = processOf(newestLayout().sequencer());
    sequencer.kill9();
    Layout after = awaitLayout(l -> l.removed().contains(sequencer.endpoint()));
    assertThat(after.sequencer()).isNotEqualTo(sequencer.endpoint());
    appendUntil(acked, 150);
    assertEveryAckedReadable(acked);
    assertThat(acked.stream().map(Acked::globalAddress).distinct().count()).isEqualTo(acked.size());
  }

  /**
   * {@code vcorfu cluster remove-node} and {@code vcorfu cluster status} against real nodes: every
   * chain at full strength first; then a planned removal of a live replica (exit 0, "removed"),
   * after which the node keeps running but serves nothing, appends go on, every chain is marked
   * under-replicated (2 of 3 serving) and the node is listed as removed, in text and in JSON; a
   * second removal of it, or of a node of no layout, is refused with exit 1 and says why.
   */
  @Test
  void removeNodeAndClusterStatusFromTheCommandLine() throws Exception {
    List<Acked> acked = new ArrayList<>();
    appendUntil(acked, 10);
    String[] text = {"cluster", "status", "--endpoint", cluster.endpointList()};
    Awaitility.await("every node serving")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                cluster.nodes().stream()
                    .allMatch(n -> nodeState(cli(text).out(), n).equals("serving")));
    assertThat(cli(text).out()).doesNotContain("under-replicated");

    ServerProcess replica = processOf(otherThan(newestLayout().sequencer()));
    String leaving = replica.endpoint().toString();
    CliRun removed = cli("cluster", "remove-node", "--endpoint", cluster.endpointList(), leaving);
    assertThat(removed.code()).as(removed.err()).isZero();
    assertThat(removed.out())
        .startsWith("removed " + leaving + ": epoch ")
        .contains("chains lack a replica")
        .contains("until a node is added");
    assertThat(replica.isAlive()).as("a planned removal leaves the process running").isTrue();
    appendUntil(acked, 30);
    assertEveryAckedReadable(acked);

    String out = cli(text).out();
    List<String> chains = out.lines().filter(l -> l.contains(" chain ")).toList();
    assertThat(chains).isNotEmpty().allMatch(l -> l.endsWith("under-replicated (2 of 3 serving)"));
    assertThat(nodeState(out, leaving)).isEqualTo("removed (left on request)");
    CliRun json =
        cli("cluster", "status", "--endpoint", cluster.endpointList(), "--output", "json");
    assertThat(json.code()).as(json.err()).isZero();
    var root = new ObjectMapper().readTree(json.out());
    assertThat(root.get("underReplicated")).isNotEmpty();
    root.get("underReplicated").forEach(c -> assertThat(c.get("serving").asInt()).isEqualTo(2));

    try (ServerProcess watch =
        ServerProcess.startCli(
            0,
            List.of(
                "cluster",
                "status",
                "--endpoint",
                cluster.endpointList(),
                "--output",
                "json",
                "--watch-ms",
                "100"))) {
      Awaitility.await("three status lines")
          .atMost(Duration.ofSeconds(60))
          .until(() -> watch.output().stream().filter(l -> l.startsWith("{")).count() >= 3);
      for (String line : watch.output().stream().filter(l -> l.startsWith("{")).toList()) {
        assertThat(new ObjectMapper().readTree(line).get("nodes")).isNotEmpty();
      }
    }

    CliRun again = cli("cluster", "remove-node", "--endpoint", cluster.endpointList(), leaving);
    assertThat(again.code()).isEqualTo(1);
    assertThat(again.err()).contains("is not in the layout").contains("removed earlier");
    CliRun unknown =
        cli("cluster", "remove-node", "--endpoint", cluster.endpointList(), "10.9.9.9:1");
    assertThat(unknown.code()).isEqualTo(1);
    assertThat(unknown.err()).contains("10.9.9.9:1 is not in the layout");
    CliRun usage =
        cli("cluster", "remove-node", "--endpoint", cluster.endpointList(), "nohostport");
    assertThat(usage.code()).isEqualTo(2);
  }

  /**
   * A replica killed with {@code kill -9} during appends is removed; restarted on its data, and
   * then (killed again) on a wiped directory, it rejoins as a rebuilding replica each time, is
   * promoted, and the cluster is back at full strength with every acknowledged write readable.
   */
  @Test
  void aKilledReplicaRestartedWithItsDataAndThenWipedRejoinsAndRestoresFullStrength()
      throws Exception {
    List<Acked> acked = new ArrayList<>();
    appendUntil(acked, 40);
    Endpoint victim = otherThan(newestLayout().sequencer());
    for (boolean wiped : new boolean[] {false, true}) {
      processOf(victim).kill9();
      awaitLayout(l -> l.removed().contains(victim));
      appendUntil(acked, acked.size() + 30);
      cluster.restart(victim, wiped);
      Layout healed = awaitLayout(l -> ProcessCluster.fullStrengthWith(l, victim));
      assertThat(healed.removed()).isEmpty();
      appendUntil(acked, acked.size() + 30);
      assertEveryAckedReadable(acked);
    }
    String out = cli("cluster", "status", "--endpoint", cluster.endpointList()).out();
    assertThat(out).doesNotContain("under-replicated");
    assertThat(nodeState(out, victim)).isEqualTo("serving");
  }

  /**
   * {@code vcorfu cluster add-node} and {@code replace-node} against real nodes: a fourth node is
   * added as a spare (status lists it as one); replacing a replica by it removes the replica (left
   * on request, never brought back) and, with {@code --wait}, returns once the spare has been
   * rebuilt and promoted; appends go on throughout and nothing acknowledged is lost. Adding a node
   * that does not answer is refused (exit 1), a malformed one is a usage error (exit 2).
   */
  @Test
  void addNodeAndReplaceNodeFromTheCommandLine() throws Exception {
    List<Acked> acked = new ArrayList<>();
    appendUntil(acked, 30);
    ServerProcess spare = cluster.startExtraNode();
    String joining = spare.endpoint().toString();
    CliRun added = cli("cluster", "add-node", "--endpoint", cluster.endpointList(), joining);
    assertThat(added.code()).as(added.err()).isZero();
    assertThat(added.out()).contains("added " + joining + " as a spare");
    assertThat(
            nodeState(
                cli("cluster", "status", "--endpoint", cluster.endpointList()).out(), joining))
        .isEqualTo("spare (answering)");

    Endpoint old = otherThan(newestLayout().sequencer());
    CliRun replaced =
        cli(
            "cluster",
            "replace-node",
            "--endpoint",
            cluster.endpointList(),
            "--wait",
            "--timeout-ms",
            "60000",
            old.toString(),
            joining);
    assertThat(replaced.code()).as(replaced.out() + replaced.err()).isZero();
    assertThat(replaced.out())
        .contains("replacing " + old + " by " + joining)
        .contains(old + " serves until " + joining + " is promoted")
        .contains(joining + " is a full member")
        .contains(old + " has left the cluster");
    appendUntil(acked, 60);
    assertEveryAckedReadable(acked);
    Layout after = newestLayout();
    assertThat(after.allServers()).contains(spare.endpoint()).doesNotContain(old);
    assertThat(after.retired()).containsExactly(old);
    String status = cli("cluster", "status", "--endpoint", cluster.endpointList()).out();
    assertThat(status).doesNotContain("under-replicated");
    assertThat(nodeState(status, old)).isEqualTo("removed (left on request)");

    CliRun again =
        cli(
            "cluster",
            "add-node",
            "--endpoint",
            cluster.endpointList(),
            "--output",
            "json",
            old.toString());
    assertThat(again.code()).as(again.err()).isZero();
    var json = new ObjectMapper().readTree(again.out());
    assertThat(json.get("command").asText()).isEqualTo("add-node");
    assertThat(json.get("layout").get("spares").get(0).asText()).isEqualTo(old.toString());
    assertThat(json.get("layout").has("retired")).as("added back: no longer retired").isFalse();

    // With a spare at hand, remove-node drains the node onto it and returns once it has left.
    Layout now = newestLayout();
    Endpoint drained =
        now.allServers().stream()
            .filter(e -> !e.equals(now.sequencer()) && !e.equals(spare.endpoint()))
            .findFirst()
            .orElseThrow();
    CliRun removed = removeNodeAndWait(drained.toString());
    assertThat(removed.code()).as(removed.out() + removed.err()).isZero();
    assertThat(removed.out())
        .contains("draining " + drained + " onto the spare " + old)
        .contains(old + " is a full member")
        .contains(drained + " has left the cluster");
    appendUntil(acked, 90);
    assertEveryAckedReadable(acked);
    assertThat(newestLayout().retired()).containsExactly(drained);

    CliRun silent = cli("cluster", "add-node", "--endpoint", cluster.endpointList(), "127.0.0.1:1");
    assertThat(silent.code()).isEqualTo(1);
    assertThat(silent.err()).contains("127.0.0.1:1 does not answer");
    try (ServerProcess single =
        ServerProcess.start(ServerProcess.freePort(), tmp.resolve("single"), null).awaitReady()) {
      CliRun stranger =
          cli(
              "cluster",
              "add-node",
              "--endpoint",
              cluster.endpointList(),
              single.endpoint().toString());
      assertThat(stranger.code()).isEqualTo(1);
      assertThat(stranger.err()).contains("is not a cluster node");
    }
    assertThat(cli("cluster", "add-node", "--endpoint", cluster.endpointList(), "x").code())
        .isEqualTo(2);
  }

  /**
   * {@code vcorfu cluster add-node --grow --wait} against real nodes while a client appends: the
   * fourth node joins stream chains as a rebuilding replica, is promoted, and then serves log
   * chains of a new segment (four log chains, R each); status shows it serving. Then {@code cluster
   * remove-node} of an original node, with no spare, drains it onto the other three (each takes its
   * places in the chains it is not in) and it leaves; every chain keeps R replicas. Nothing
   * acknowledged is lost throughout.
   */
  @Test
  void addNodeWithGrowFromTheCommandLine() throws Exception {
    List<Acked> acked = new ArrayList<>();
    appendUntil(acked, 30);
    ServerProcess extra = cluster.startExtraNode();
    String joining = extra.endpoint().toString();
    CliRun grown =
        cli(
            "cluster",
            "add-node",
            "--endpoint",
            cluster.endpointList(),
            "--grow",
            "--wait",
            "--timeout-ms",
            "60000",
            joining);
    assertThat(grown.code()).as(grown.out() + grown.err()).isZero();
    assertThat(grown.out())
        .contains("added " + joining + " to grow the cluster")
        .contains("of the 6 stream chains")
        .contains(joining + " is a full member");
    appendUntil(acked, 60);
    Layout after = newestLayout();
    assertThat(after.currentSegment().log()).hasSize(4);
    assertThat(after.currentSegment().log())
        .filteredOn(c -> c.contains(extra.endpoint()))
        .hasSize(after.replication());
    assertThat(after.currentSegment().stream())
        .allSatisfy(c -> assertThat(c).hasSize(after.replication()));
    assertThat(after.currentSegment().stream()).hasSize(6);
    String grownStatus = cli("cluster", "status", "--endpoint", cluster.endpointList()).out();
    assertThat(grownStatus)
        .contains("stream chains 6 (3 split in two once as the cluster grew)")
        .doesNotContain("under-replicated");
    assertThat(nodeState(grownStatus, joining)).isEqualTo("serving");
    assertEveryAckedReadable(acked);

    // Four nodes, R = 3, no spare: remove-node drains an original node onto the other three.
    String leaving = cluster.nodes().get(2).toString();
    CliRun removed = removeNodeAndWait(leaving);
    assertThat(removed.code()).as(removed.out() + removed.err()).isZero();
    assertThat(removed.out())
        .contains("draining " + leaving + " onto the other nodes")
        .contains(leaving + " has left the cluster");
    appendUntil(acked, 90);
    Layout shrunk = newestLayout();
    assertThat(shrunk.allServers()).hasSize(3).doesNotContain(Endpoint.parse(leaving));
    assertThat(shrunk.retired()).contains(Endpoint.parse(leaving));
    assertThat(shrunk.currentSegment().log())
        .allSatisfy(c -> assertThat(c).hasSize(shrunk.replication()));
    assertThat(shrunk.currentSegment().stream())
        .allSatisfy(c -> assertThat(c).hasSize(shrunk.replication()));
    String shrunkStatus = cli("cluster", "status", "--endpoint", cluster.endpointList()).out();
    assertThat(shrunkStatus).doesNotContain("under-replicated");
    assertThat(nodeState(shrunkStatus, leaving)).isEqualTo("removed (left on request)");
    assertEveryAckedReadable(acked);
  }

  /**
   * The state of {@code node} in the node table of a {@code cluster status} text output, with its
   * detail in parentheses when it has one ("serving", "spare (answering)"); "absent" when the table
   * has no row for it. The table's columns are separated by at least two spaces.
   */
  static String nodeState(String status, Object node) {
    for (String line : status.lines().toList()) {
      String[] cells = line.split(" {2,}");
      if (cells.length >= 6 && cells[0].equals(node.toString())) {
        return cells[2] + (cells.length > 6 ? " (" + cells[6] + ")" : "");
      }
    }
    return "absent";
  }

  private static CliRun cli(String... args) {
    return CliRun.of(args);
  }

  /** {@code cluster remove-node}, waiting up to 90 s for a drain to end. */
  private CliRun removeNodeAndWait(String node) {
    return cli(
        "cluster",
        "remove-node",
        "--endpoint",
        cluster.endpointList(),
        "--timeout-ms",
        "90000",
        node);
  }

  @Test
  void aPausedSequencerReplacedWhilePausedGivesNoStaleTailWhenResumed() throws Exception {
    List<Acked> acked = new ArrayList<>();
    appendUntil(acked, 30);
    Layout before = newestLayout();
    ServerProcess sequencer = processOf(before.sequencer());
    sequencer.pause();
    Layout after = awaitLayout(l -> l.removed().contains(sequencer.endpoint()));
    appendUntil(acked, 80);
    long lastAcked = acked.stream().mapToLong(Acked::globalAddress).max().orElseThrow();
    sequencer.resume();
    // A client that still holds the old layout asks the resumed sequencer for the tail at once,
    // and keeps asking for a while: it may be refused, but never answered with a stale tail.
    try (RpcClient rpc =
        transport.newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(5)))) {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
      int answered = 0;
      int refused = 0;
      while (System.nanoTime() - until < 0 && answered + refused < 5_000) {
        Response r =
            rpc.call(
                    sequencer.endpoint(),
                    Request.newBuilder()
                        .setHeader(
                            Header.newBuilder()
                                .setEpoch(before.epoch())
                                .setClusterId(before.clusterId())
                                .setProtocolVersion(1))
                        .setTail(TailRequest.newBuilder().addStreams(STREAM.toMsg()))
                        .build())
                .get(10, TimeUnit.SECONDS);
        if (r.getPayloadCase() == Response.PayloadCase.TAIL) {
          answered++;
          assertThat(r.getTail().getGlobalTail())
              .as("a tail answered by the resumed sequencer")
              .isGreaterThanOrEqualTo(lastAcked);
        } else {
          if (refused == 0) {
            System.out.println("ClusterProcessTest: first refusal: " + r.getError().getMessage());
          }
          refused++;
        }
      }
      System.out.println(
          "ClusterProcessTest: the resumed sequencer answered "
              + answered
              + " tail requests of the old epoch and refused "
              + refused);
      assertThat(answered + refused).isPositive();
    }
    assertThat(after.sequencer()).isNotEqualTo(sequencer.endpoint());
    appendUntil(acked, 100);
    assertEveryAckedReadable(acked);
  }

  private Endpoint otherThan(Endpoint e) {
    return cluster.otherThan(e);
  }

  private ServerProcess processOf(Endpoint e) {
    return cluster.processOf(e);
  }

  private Layout newestLayout() throws Exception {
    return cluster.newestLayout();
  }

  private Layout awaitLayout(java.util.function.Predicate<Layout> condition) {
    return cluster.awaitLayout(condition);
  }

  private ClusterStreamLog client() throws Exception {
    Layout l = newestLayout();
    Endpoint seed = l.allServers().iterator().next();
    return ClusterStreamLog.connect(
        transport,
        seed,
        StreamLogOptions.defaults()
            .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2))));
  }

  private void appendUntil(List<Acked> acked, int total) {
    AckedAppends.appendUntil(this::client, STREAM, acked, total, "p");
  }

  private void assertEveryAckedReadable(List<Acked> acked) {
    AckedAppends.awaitReadBack(
        "every acknowledged write readable",
        this::client,
        STREAM,
        acked,
        (log, entries) -> {
          for (Acked a : acked) {
            StreamEntry e = entries.get((int) a.streamAddress());
            assertThat(e.isHole()).as("slot of %s", a).isFalse();
            assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(a.value());
            assertThat(e.globalAddress()).isEqualTo(a.globalAddress());
          }
          ReplicaAgreement.assertReplicasAgree(log, cluster.newestLayout(), List.of(STREAM));
        });
  }
}
