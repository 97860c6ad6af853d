package io.vcorfu.benchmarks.suite;

import io.vcorfu.benchmarks.CostMeter;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * An etcd cluster of N members on 127.0.0.1, as {@code peers/etcd.sh --members N} runs one: member
 * i listens on client port PORT+2i and peer port PEER_PORT+2i, its log and data under
 * DIR/etcd/member-i, one {@code --initial-cluster} naming them all, fsync before acknowledging.
 * Every member is a process of this run, stopped by its pid.
 */
final class EtcdCluster {
  private static final int HEALTH_SECONDS = 30;

  private final Processes processes;
  private final Path state;
  private final int port;
  private final int peerPort;
  private final int members;
  private final List<Processes.Started> running = new ArrayList<>();
  private BenchTls tls; // null: plaintext

  EtcdCluster(Processes processes, Path workdir, int port, int peerPort, int members) {
    this.processes = processes;
    this.state = workdir.resolve("etcd");
    this.port = port;
    this.peerPort = peerPort;
    this.members = members;
  }

  /**
   * Serves clients over TLS with {@code tls}'s server certificate, requiring client certificates of
   * its CA (from the next {@link #start}); health and metrics move to a plaintext port of their own
   * ({@code --listen-metrics-urls}); members speak TLS to each other too, with the same certificate
   * for both ends and peer certificates required, as vcorfu's nodes do.
   */
  EtcdCluster withTls(BenchTls tls) {
    this.tls = tls;
    return this;
  }

  private String scheme() {
    return tls == null ? "http://" : "https://";
  }

  private int healthPort(int i) {
    return tls == null ? clientPort(i) : peerPort(i) + 100;
  }

  int clientPort(int i) {
    return port + 2 * i;
  }

  private int peerPort(int i) {
    return peerPort + 2 * i;
  }

  private Path memberDir(int i) {
    return members == 1 ? state : state.resolve("member-" + i);
  }

  private String memberName(int i) {
    return members == 1 ? "vcorfu-peer" : "vcorfu-peer-" + i;
  }

  /** Every member's client endpoint, HOST:PORT, comma-separated. */
  String endpoints() {
    return IntStream.range(0, members)
        .mapToObj(i -> Net.HOST + ":" + clientPort(i))
        .collect(Collectors.joining(","));
  }

  /** Every member's client URL, comma-separated (https with TLS). */
  String urls() {
    return IntStream.range(0, members)
        .mapToObj(i -> scheme() + Net.HOST + ":" + clientPort(i))
        .collect(Collectors.joining(","));
  }

  /**
   * A meter of what a window of this cluster's load costs the machine: its counters and, from every
   * member's /metrics, etcd's fsyncs (its log's and its backend's commits) and requests.
   */
  CostMeter costMeter() {
    return new CostMeter(
        IntStream.range(0, members)
            .mapToObj(i -> URI.create("http://" + Net.HOST + ":" + healthPort(i) + "/metrics"))
            .toList(),
        List.of(
            "etcd_disk_wal_fsync_duration_seconds_count",
            "etcd_disk_backend_commit_duration_seconds_count"),
        List.of("grpc_server_handled_total"));
  }

  /** The members' pids, comma-separated, in the order of {@link #endpoints}. */
  String pids() {
    return running.stream().map(p -> "" + p.pid()).collect(Collectors.joining(","));
  }

  /** Starts every member on fresh data directories and waits until each reports itself healthy. */
  void start() throws IOException, InterruptedException {
    if (!running.isEmpty()) {
      throw new IllegalStateException("etcd is already running (pids " + pids() + ")");
    }
    String initial =
        IntStream.range(0, members)
            .mapToObj(i -> memberName(i) + "=" + scheme() + Net.HOST + ":" + peerPort(i))
            .collect(Collectors.joining(","));
    for (int i = 0; i < members; i++) {
      Net.requireFree(clientPort(i));
      Net.requireFree(peerPort(i));
    }
    for (int i = 0; i < members; i++) {
      Path dir = memberDir(i);
      Path data = dir.resolve("data");
      Workdirs.deleteTree(data);
      Files.createDirectories(data);
      Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
      String client = scheme() + Net.HOST + ":" + clientPort(i);
      String peer = scheme() + Net.HOST + ":" + peerPort(i);
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  "etcd",
                  "--name",
                  memberName(i),
                  "--data-dir",
                  data.toString(),
                  "--listen-client-urls",
                  client,
                  "--advertise-client-urls",
                  client,
                  "--listen-peer-urls",
                  peer,
                  "--initial-advertise-peer-urls",
                  peer,
                  "--initial-cluster",
                  initial,
                  "--initial-cluster-state",
                  "new",
                  "--initial-cluster-token",
                  "vcorfu-peers",
                  "--logger",
                  "zap",
                  "--log-outputs",
                  "stderr",
                  "--enable-pprof=false"));
      if (tls != null) {
        Net.requireFree(healthPort(i));
        cmd.addAll(
            List.of(
                "--cert-file",
                tls.serverCert().toString(),
                "--key-file",
                tls.serverKey().toString(),
                "--trusted-ca-file",
                tls.ca().toString(),
                "--client-cert-auth",
                "--peer-cert-file",
                tls.serverCert().toString(),
                "--peer-key-file",
                tls.serverKey().toString(),
                "--peer-trusted-ca-file",
                tls.ca().toString(),
                "--peer-client-cert-auth",
                "--listen-metrics-urls",
                "http://" + Net.HOST + ":" + healthPort(i)));
      }
      running.add(
          processes.start("etcd (" + dir.getFileName() + ")", dir.resolve("etcd.log"), cmd));
    }
    for (int i = 0; i < members; i++) {
      Net.awaitPort(running.get(i), clientPort(i), HEALTH_SECONDS);
    }
    for (int i = 0; i < HEALTH_SECONDS * 10 && !allHealthy(); i++) {
      Thread.sleep(100);
    }
    if (!allHealthy()) {
      throw new IllegalStateException(
          "etcd did not report itself healthy within 30 s (logs: "
              + memberDir(0)
              + "/etcd.log ...)");
    }
    SuiteLog.log("etcd cluster of " + members + " members listening on " + endpoints());
  }

  private boolean allHealthy() {
    for (int i = 0; i < members; i++) {
      String reply = Net.get(healthPort(i), "/health");
      if (reply == null || !reply.contains("\"health\":\"true\"")) {
        return false;
      }
    }
    return true;
  }

  /** Stops every member by its pid (one a failover killed is only forgotten), removes the data. */
  void stop() {
    for (Processes.Started p : running) {
      processes.stop(p);
    }
    running.clear();
    for (int i = 0; i < members; i++) {
      Workdirs.deleteTree(memberDir(i).resolve("data"));
    }
  }
}
