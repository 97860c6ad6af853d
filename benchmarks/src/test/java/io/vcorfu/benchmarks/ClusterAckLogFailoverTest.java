package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cli.VcorfuCli;
import io.vcorfu.server.cluster.NodeCalls;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Real processes: {@code vcorfu zookeeper}, three cluster nodes (replication 3) and {@code vcorfu
 * bench append --ack-log} as a client process. The test kills the sequencer with {@code kill -9},
 * waits until appends are acknowledged again, then kills a node that is not the sequencer (a log
 * and a stream replica of every chain); appends resume again. Afterwards every acknowledged append
 * reads back, by stream address and by global address, with the value and addresses it was
 * acknowledged with.
 */
class ClusterAckLogFailoverTest {
  @TempDir Path tmp;

  private final List<ServerProcess> processes = new ArrayList<>();

  @AfterEach
  void stop() {
    processes.forEach(ServerProcess::close);
  }

  @Test
  void killNineOfTheSequencerAndThenOfAReplicaDuringBenchAppendLosesNoAcknowledgedAppend()
      throws Exception {
    int zkPort = ServerProcess.freePort();
    String zookeeper = "127.0.0.1:" + zkPort;
    processes.add(
        ServerProcess.startCli(
                zkPort,
                List.of(
                    "zookeeper",
                    "--port",
                    Integer.toString(zkPort),
                    "--data-dir",
                    tmp.resolve("zk").toString()))
            .awaitReady());
    List<ServerProcess> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int port = ServerProcess.freePort();
      ServerProcess p =
          ServerProcess.start(
              port,
              List.of(
                  "--data-dir",
                  tmp.resolve("node-" + i).toString(),
                  "--zookeeper",
                  zookeeper,
                  "--cluster",
                  "bench",
                  "--failure-timeout-ms",
                  "1500"));
      processes.add(p);
      nodes.add(p);
    }
    nodes.forEach(ServerProcess::awaitReady);
    String list = String.join(",", nodes.stream().map(p -> p.endpoint().toString()).toList());
    StringWriter out = new StringWriter();
    CommandLine cli = VcorfuCli.newCommandLine();
    cli.setOut(new PrintWriter(out));
    assertThat(
            cli.execute(
                "cluster", "init", "--zookeeper", zookeeper, "--cluster", "bench", "--nodes", list))
        .as("cluster init: %s", out)
        .isZero();

    Path acks = tmp.resolve("acks");
    Process bench =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                "io.vcorfu.benchmarks.BenchCli",
                "append",
                "--endpoint",
                list,
                "--threads",
                "4",
                "--streams",
                "4",
                "--size",
                "64",
                "--duration",
                "40",
                "--failover-timeout",
                "30",
                "--prefix",
                "acked",
                "--ack-log",
                acks.toString())
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve("bench.out").toFile())
            .start();
    try {
      awaitAcks(acks, 200);
      Endpoint sequencer = newestLayout(nodes).sequencer();
      processOf(nodes, sequencer).kill9();
      int before = lines(acks);
      awaitAcks(acks, before + 200);
      Layout now = newestLayout(nodes);
      Endpoint replica =
          now.allServers().stream()
              .filter(e -> !e.equals(now.sequencer()))
              .findFirst()
              .orElseThrow();
      processOf(nodes, replica).kill9();
      before = lines(acks);
      awaitAcks(acks, before + 200);
    } finally {
      bench.destroy();
      if (!bench.waitFor(30, TimeUnit.SECONDS)) {
        bench.destroyForcibly();
      }
    }
    List<String> progress =
        Files.readAllLines(tmp.resolve("bench.out")).stream()
            .filter(l -> l.startsWith("progress "))
            .toList();
    assertThat(progress).as("one progress line a second").hasSizeGreaterThan(3);

    ServerProcess survivor = nodes.stream().filter(p -> p.isAlive()).findFirst().orElseThrow();
    try (NettyTransport transport = new NettyTransport();
        ClusterStreamLog log =
            ClusterStreamLog.connect(
                transport,
                List.of(survivor.endpoint()),
                StreamLogOptions.defaults()
                    .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(5))))) {
      Map<String, Long> highest = new HashMap<>();
      List<String[]> acked = new ArrayList<>();
      for (String line : Files.readAllLines(acks)) {
        String[] f = line.split(" ");
        if (f.length != 4) {
          continue; // the line being written when the client stopped
        }
        acked.add(f);
        highest.merge(f[0], Long.parseLong(f[1]), Math::max);
      }
      Map<String, List<StreamEntry>> streams = new HashMap<>();
      for (Map.Entry<String, Long> e : highest.entrySet()) {
        streams.put(
            e.getKey(),
            log.readStream(StreamId.of(e.getKey()), 0, e.getValue()).get(60, TimeUnit.SECONDS));
      }
      for (String[] f : acked) {
        StreamEntry e = streams.get(f[0]).get(Integer.parseInt(f[1]));
        assertThat(e.isHole()).as("stream slot of %s", String.join(" ", f)).isFalse();
        assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(f[3]);
        assertThat(e.globalAddress()).isEqualTo(Long.parseLong(f[2]));
      }
      // By global address too, for a sample spread over the whole run.
      for (int i = 0; i < acked.size(); i += Math.max(1, acked.size() / 200)) {
        String[] f = acked.get(i);
        GlobalEntry g = log.readGlobal(Long.parseLong(f[2])).get(30, TimeUnit.SECONDS);
        assertThat(new String(g.payload(), StandardCharsets.UTF_8)).isEqualTo(f[3]);
      }
      System.out.println(
          "ClusterAckLogFailoverTest: " + acked.size() + " acknowledged appends read back");
    }
  }

  private static ServerProcess processOf(List<ServerProcess> nodes, Endpoint e) {
    return nodes.stream().filter(p -> p.endpoint().equals(e)).findFirst().orElseThrow();
  }

  private static int lines(Path file) throws IOException {
    return Files.exists(file) ? Files.readAllLines(file).size() : 0;
  }

  private static void awaitAcks(Path acks, int atLeast) {
    Awaitility.await("at least " + atLeast + " acknowledged appends")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> lines(acks) >= atLeast);
  }

  private static Layout newestLayout(List<ServerProcess> nodes) throws Exception {
    try (NettyTransport transport = new NettyTransport();
        RpcClient rpc =
            transport.newClient(
                ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(1)))) {
      NodeCalls calls = new NodeCalls(rpc);
      Layout newest = null;
      for (ServerProcess p : nodes) {
        if (!p.isAlive()) {
          continue;
        }
        Layout l = Layout.fromJson(calls.layoutJson(p.endpoint()).get(2, TimeUnit.SECONDS));
        if (newest == null || l.epoch() > newest.epoch()) {
          newest = l;
        }
      }
      return newest;
    }
  }
}
