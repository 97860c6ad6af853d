package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.server.ChildJvm;
import io.vcorfu.server.cluster.ProcessCluster;
import java.io.IOException;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Real processes: {@code vcorfu zookeeper}, three cluster nodes (replication 3) and {@code vcorfu
 * bench append --ack-log} as a client process. The test kills the sequencer with {@code kill -9},
 * waits until appends are acknowledged again, then kills a node that is not the sequencer (a log
 * and a stream replica of every chain); appends resume again. Afterwards every acknowledged append
 * reads back, by stream address and by global address, with the value and addresses it was
 * acknowledged with, and no value is stored twice in its stream. The same again with 4 s pauses
 * (SIGSTOP, then SIGCONT) instead of kills; the replica is stopped as soon as appends are
 * acknowledged again, typically while the resumed sequencer rejoins.
 *
 * <p>The two cases run concurrently: each has a cluster, a client process and a directory of its
 * own, and each spends most of its time waiting on them (failover, the pauses).
 */
@Execution(ExecutionMode.CONCURRENT)
class ClusterAckLogFailoverTest {
  @TempDir Path tmp;

  @Test
  void killNineOfTheSequencerAndThenOfAReplicaDuringBenchAppendLosesNoAcknowledgedAppend()
      throws Exception {
    try (ProcessCluster cluster = ProcessCluster.start(tmp, "bench", 3)) {
      run(cluster, (role, node) -> cluster.processOf(node).kill9());
    }
  }

  /**
   * The same with SIGSTOP instead of {@code kill -9}: the sequencer, then a replica, each stopped
   * for 4 s and then resumed (it finds itself out of the layout and rejoins). The longest stretch
   * without an acknowledgement while each was stopped is printed.
   */
  @Test
  void fourSecondPausesOfTheSequencerAndThenOfAReplicaDuringBenchAppendLoseNoAcknowledgedAppend()
      throws Exception {
    try (ProcessCluster cluster = ProcessCluster.start(tmp, "bench", 3)) {
      run(cluster, (role, node) -> pauseForFourSeconds(cluster, role, node));
    }
  }

  /**
   * Stops {@code node} (SIGSTOP) for 4 s, then resumes it; prints the longest stretch without an
   * acknowledgement meanwhile.
   */
  private void pauseForFourSeconds(ProcessCluster cluster, String role, Endpoint node)
      throws Exception {
    io.vcorfu.server.ServerProcess p = cluster.processOf(node);
    AckGaps gaps = new AckGaps(tmp.resolve("acks"));
    p.pause();
    try {
      gaps.watchFor(Duration.ofSeconds(4));
    } finally {
      p.resume();
    }
    System.out.printf(
        "ClusterAckLogFailoverTest: %s %s stopped 4 s: longest stretch without an"
            + " acknowledgement %d ms%n",
        role, node, gaps.longestMillis());
  }

  /** What the test does to the node holding {@code role}. */
  private interface Fault {
    void hit(String role, Endpoint node) throws Exception;
  }

  /**
   * The longest stretch during a watch in which the ack log did not grow (each acknowledgement
   * appends a line), sampled every 5 ms from the start of the watch.
   */
  private static final class AckGaps {
    private final Path acks;
    private long longestNanos;

    AckGaps(Path acks) {
      this.acks = acks;
    }

    void watchFor(Duration d) throws IOException, InterruptedException {
      long start = System.nanoTime();
      long end = start + d.toNanos();
      long size = Files.size(acks);
      long lastGrowth = start;
      while (System.nanoTime() - end < 0) {
        long now = System.nanoTime();
        long s = Files.size(acks);
        if (s != size) {
          size = s;
          longestNanos = Math.max(longestNanos, now - lastGrowth);
          lastGrowth = now;
        }
        Thread.sleep(5); // the sampling interval of the measurement, not a wait for a condition
      }
      longestNanos = Math.max(longestNanos, System.nanoTime() - lastGrowth);
    }

    long longestMillis() {
      return TimeUnit.NANOSECONDS.toMillis(longestNanos);
    }
  }

  private void run(ProcessCluster cluster, Fault fault) throws Exception {
    String list = cluster.endpointList();
    Path acks = tmp.resolve("acks");
    // A test's child JVM (the client compiler only, as the nodes): the bench's rate is not what
    // this test measures, and the optimizing compiler would take processor time from the nodes.
    List<String> command = ChildJvm.command("512m", "io.vcorfu.benchmarks.BenchCli");
    command.addAll(
        List.of(
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
            "90",
            "--failover-timeout",
            "30",
            "--prefix",
            "acked",
            "--ack-log",
            acks.toString()));
    Process bench =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve("bench.out").toFile())
            .start();
    try {
      awaitAcks(acks, 200);
      Endpoint first = cluster.newestLayout().sequencer();
      fault.hit("sequencer", first);
      int before = lines(acks);
      awaitAcks(acks, before + 200);
      // A node other than the first one hit (which, paused and resumed, may be rejoining
      // meanwhile).
      Layout now = cluster.newestLayout();
      Endpoint replica =
          now.allServers().stream()
              .filter(e -> !e.equals(now.sequencer()) && !e.equals(first))
              .findFirst()
              .orElseThrow();
      fault.hit("replica", replica);
      before = lines(acks);
      awaitAcks(acks, before + 200);
      // The bench prints a progress line a second while it runs (at most 90 s here).
      Path out = tmp.resolve("bench.out");
      Awaitility.await("four progress lines")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  Files.readAllLines(out).stream().filter(l -> l.startsWith("progress ")).count()
                      >= 4);
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

    Endpoint survivor = cluster.newestLayout().sequencer();
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(
            cluster.transport(),
            List.of(survivor),
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
      for (Map.Entry<String, List<StreamEntry>> e : streams.entrySet()) {
        List<String> stored =
            e.getValue().stream()
                .filter(x -> !x.isHole())
                .map(x -> new String(x.payload(), StandardCharsets.UTF_8))
                .toList();
        assertThat(stored).as("the values stored in stream %s", e.getKey()).doesNotHaveDuplicates();
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

  private static int lines(Path file) throws IOException {
    return Files.exists(file) ? Files.readAllLines(file).size() : 0;
  }

  private static void awaitAcks(Path acks, int atLeast) {
    Awaitility.await("at least " + atLeast + " acknowledged appends")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> lines(acks) >= atLeast);
  }
}
