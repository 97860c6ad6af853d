package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * vcorfu nodes of one cluster name on 127.0.0.1 ports, in one directory (node i in DIR/n{i}, its
 * data in DIR/n{i}/data), each a process of the run: started at once, awaited, given their first
 * layout ({@code cluster init}), stopped by pid.
 */
final class VcorfuCluster {
  private final VcorfuProcesses vcorfu;
  private final Processes processes;
  private final Path dir;
  private final String name;
  private final List<Integer> ports;
  private final List<String> jvmFlags;
  private final IntFunction<List<String>> serverArgs;
  private final Processes.Started[] nodes;

  /**
   * NAME's nodes on PORTS (node i on PORTS[i]), each started with JVM_FLAGS and {@code --data-dir
   * DIR/n{i}/data} followed by SERVER_ARGS(i).
   */
  VcorfuCluster(
      VcorfuProcesses vcorfu,
      Processes processes,
      Path dir,
      String name,
      List<Integer> ports,
      List<String> jvmFlags,
      IntFunction<List<String>> serverArgs) {
    this.vcorfu = vcorfu;
    this.processes = processes;
    this.dir = dir;
    this.name = name;
    this.ports = ports;
    this.jvmFlags = jvmFlags;
    this.serverArgs = serverArgs;
    this.nodes = new Processes.Started[ports.size()];
  }

  Path dir() {
    return dir;
  }

  String endpoint(int i) {
    return Net.HOST + ":" + ports.get(i);
  }

  /** The first N nodes' endpoints, comma-separated. */
  String endpoints(int n) {
    List<String> e = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      e.add(endpoint(i));
    }
    return String.join(",", e);
  }

  /** Starts node I (on what its data directory holds) without waiting for it. */
  Processes.Started launch(int i) throws IOException {
    Path home = dir.resolve("n" + i);
    List<String> args = new ArrayList<>(List.of("--data-dir", home.resolve("data").toString()));
    args.addAll(serverArgs.apply(i));
    nodes[i] = vcorfu.launchNode("vcorfu n" + i, home, ports.get(i), jvmFlags, args);
    return nodes[i];
  }

  /** Waits for node I's ready line. */
  void awaitReady(int i) throws IOException, InterruptedException {
    VcorfuProcesses.awaitReady(nodes[i]);
  }

  /**
   * Starts the first N nodes at once on fresh directories, waits for them and gives them the first
   * layout ({@code cluster init --zookeeper ZK --cluster NAME --nodes ...}).
   */
  void up(int n, String zookeeper) throws IOException, InterruptedException {
    up(n, zookeeper, List.of());
  }

  /**
   * As {@link #up(int, String)}, {@code cluster init} also given CLIENT_FLAGS (the TLS files it
   * reaches the nodes with, when they serve only TLS).
   */
  void up(int n, String zookeeper, List<String> clientFlags)
      throws IOException, InterruptedException {
    for (int i = 0; i < n; i++) {
      Workdirs.deleteTree(dir.resolve("n" + i));
      launch(i);
    }
    for (int i = 0; i < n; i++) {
      awaitReady(i);
    }
    List<String> init =
        new ArrayList<>(
            List.of(
                "cluster",
                "init",
                "--zookeeper",
                zookeeper,
                "--cluster",
                name,
                "--nodes",
                endpoints(n)));
    init.addAll(clientFlags);
    vcorfu.runCli(init, dir.resolve("init.log"), "cluster init of " + name);
    SuiteLog.log("vcorfu cluster " + name + " up: " + endpoints(n) + " (pids " + pids(n) + ")");
  }

  /** The first N nodes' pids, comma-separated, in endpoint order. */
  String pids(int n) {
    return Arrays.stream(nodes, 0, n).map(p -> "" + p.pid()).collect(Collectors.joining(","));
  }

  /** Node I's process, or null when it was never started. */
  Processes.Started node(int i) {
    return nodes[i];
  }

  /** Stops every node started, by pid (one already killed is only forgotten). */
  void down() {
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i] != null) {
        processes.stop(nodes[i]);
        nodes[i] = null;
      }
    }
  }
}
