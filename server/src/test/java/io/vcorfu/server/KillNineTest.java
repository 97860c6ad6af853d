package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real server processes on loopback, one killed with SIGKILL while clients append, then restarted:
 * every acknowledged append is still there, at the addresses it was acknowledged with.
 */
class KillNineTest {
  private static final int STREAMS = 8;

  /**
   * How long an append retries before it fails: writers notice the kill (no layout change follows
   * it here) after this long, rather than after the default 30 s.
   */
  private static final StreamLogOptions OPTIONS =
      StreamLogOptions.defaults().withFailoverTimeout(Duration.ofSeconds(5));

  record Ack(String stream, long streamAddress, long global, String value) {}

  /** Appends from several threads until {@code stop}; records only acknowledged appends. */
  private static List<Thread> writers(
      ClusterStreamLog log,
      String tag,
      Map<String, Ack> acks,
      AtomicBoolean stop,
      AtomicInteger failures,
      long deadlineNanos) {
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      Thread w =
          new Thread(
              () -> {
                for (int i = 0; !stop.get() && System.nanoTime() < deadlineNanos; i++) {
                  String stream = "kill-" + ((i + thread) % STREAMS);
                  String value = tag + "-" + thread + "-" + i;
                  try {
                    AppendResult r =
                        log.append(
                                List.of(StreamId.of(stream)),
                                value.getBytes(StandardCharsets.UTF_8))
                            .join();
                    acks.put(
                        value,
                        new Ack(
                            stream,
                            r.streamAddresses().get(StreamId.of(stream)),
                            r.globalAddress(),
                            value));
                  } catch (RuntimeException e) {
                    failures.incrementAndGet();
                    return; // the server went away: stop this writer
                  }
                }
              });
      w.start();
      threads.add(w);
    }
    return threads;
  }

  private static void verify(ClusterStreamLog log, Map<String, Ack> acks) {
    for (int k = 0; k < STREAMS; k++) {
      String stream = "kill-" + k;
      StreamId id = StreamId.of(stream);
      long tail = log.tails(List.of(id)).join().streamTails().get(id);
      Map<Long, StreamEntry> byAddress = new ConcurrentHashMap<>();
      for (StreamEntry e : log.readStream(id, 0, tail).join()) {
        byAddress.put(e.streamAddress(), e);
      }
      for (Ack a : acks.values()) {
        if (!a.stream().equals(stream)) {
          continue;
        }
        StreamEntry e = byAddress.get(a.streamAddress());
        assertThat(e)
            .as("acknowledged %s at %s/%d lost", a.value(), stream, a.streamAddress())
            .isNotNull();
        assertThat(e.isHole()).as("acknowledged %s became a hole", a.value()).isFalse();
        assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(a.value());
        assertThat(e.globalAddress()).isEqualTo(a.global());
      }
    }
  }

  private static void runUntilKilled(
      ClusterStreamLog log, ServerProcess victim, Map<String, Ack> acks, String tag)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger failures = new AtomicInteger();
    int before = acks.size();
    List<Thread> ws =
        writers(
            log, tag, acks, stop, failures, System.nanoTime() + Duration.ofSeconds(60).toNanos());
    Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> acks.size() >= before + 500);
    victim.kill9();
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> ws.stream().noneMatch(Thread::isAlive) || failures.get() > 0);
    stop.set(true);
    for (Thread w : ws) {
      w.join();
    }
  }

  private static void appendMore(ClusterStreamLog log, Map<String, Ack> acks, String tag)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger failures = new AtomicInteger();
    int before = acks.size();
    List<Thread> ws =
        writers(
            log, tag, acks, stop, failures, System.nanoTime() + Duration.ofSeconds(60).toNanos());
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> acks.size() >= before + 500 || failures.get() > 0);
    stop.set(true);
    for (Thread w : ws) {
      w.join();
    }
    assertThat(failures.get()).as("appends after restart").isZero();
  }

  @Test
  void singleDurableNodeKeepsAcknowledgedAppendsAcrossKillNine(@TempDir Path tmp) throws Exception {
    int port = ServerProcess.freePort();
    Path data = tmp.resolve("node");
    Map<String, Ack> acks = new ConcurrentHashMap<>();
    try (NettyTransport transport = new NettyTransport()) {
      ServerProcess server = ServerProcess.start(port, data, null).awaitReady();
      try (ClusterStreamLog log = ClusterStreamLog.connect(transport, server.endpoint(), OPTIONS)) {
        runUntilKilled(log, server, acks, "before");
      }
      try (ServerProcess restarted = ServerProcess.start(port, data, null).awaitReady();
          ClusterStreamLog log =
              ClusterStreamLog.connect(transport, restarted.endpoint(), OPTIONS)) {
        verify(log, acks);
        appendMore(log, acks, "after");
        verify(log, acks);
      }
    }
  }

  @Test
  void fiveProcessLayoutSurvivesKillNineOfALogReplicaAndTheSequencer(@TempDir Path tmp)
      throws Exception {
    int[] ports = new int[5];
    for (int i = 0; i < 5; i++) {
      ports[i] = ServerProcess.freePort();
    }
    Endpoint[] e = new Endpoint[5];
    for (int i = 0; i < 5; i++) {
      e[i] = new Endpoint("127.0.0.1", ports[i]);
    }
    Path layout =
        Files.writeString(
            tmp.resolve("layout.json"),
            InProcessCluster.fiveNodeLayout(e[0], e[1], e[2], e[3], e[4]));
    List<ServerProcess> servers = new ArrayList<>();
    Map<String, Ack> acks = new ConcurrentHashMap<>();
    try (NettyTransport transport = new NettyTransport()) {
      for (int i = 0; i < 5; i++) {
        servers.add(ServerProcess.start(ports[i], tmp.resolve("n" + i), layout));
      }
      for (ServerProcess s : servers) {
        s.awaitReady();
      }
      try (ClusterStreamLog log = ClusterStreamLog.connect(transport, e[0], OPTIONS)) {
        // A log replica dies mid-run and comes back.
        runUntilKilled(log, servers.get(1), acks, "log");
        servers.set(1, ServerProcess.start(ports[1], tmp.resolve("n1"), layout).awaitReady());
        verify(log, acks);
        // The sequencer dies mid-run and comes back: it rebuilds its tails from the replicas.
        runUntilKilled(log, servers.get(0), acks, "seq");
        servers.set(0, ServerProcess.start(ports[0], tmp.resolve("n0"), layout).awaitReady());
        appendMore(log, acks, "after");
        verify(log, acks);
      }
    } finally {
      for (ServerProcess s : servers) {
        s.close();
      }
    }
  }
}
