package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cli.CliRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;

/**
 * A cluster of real processes on loopback: {@code vcorfu zookeeper}, {@code n} {@code vcorfu
 * server} cluster nodes with short timings (probes every 100 ms, removal after 1.5 s of silence,
 * layout leases of 500 ms) and {@code vcorfu cluster init}. Only the processes it started are ever
 * signalled or ended, each by its own handle; {@link #close} resumes paused ones before ending
 * them. Shared with other modules' tests through the server's test-jar.
 */
public final class ProcessCluster implements AutoCloseable {
  private final String name;
  private final List<ServerProcess> processes = new ArrayList<>();
  // Read by other threads (a test's sampler) while a node restarts: a restart adds the new process
  // before it drops the old, so processOf always finds one.
  private final List<ServerProcess> nodeProcesses =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final List<Endpoint> nodes = new ArrayList<>();
  private final NettyTransport transport = new NettyTransport();
  private NodeCalls layoutCalls;
  private String zookeeper;
  private boolean ownZooKeeper = true;
  private Path tmp;
  private int started;
  private List<String> nodeArgs = List.of();
  private boolean logTrims;
  private final java.util.Map<Endpoint, Path> dataDirs = new java.util.HashMap<>();

  private ProcessCluster(String name) {
    this.name = name;
  }

  /**
   * Starts ZooKeeper and {@code n} nodes under {@code tmp}, and initializes cluster {@code name}.
   */
  public static ProcessCluster start(Path tmp, String name, int n) {
    return start(tmp, name, n, List.of());
  }

  /** As {@link #start(Path, String, int)}, every node started with {@code nodeArgs} too. */
  public static ProcessCluster start(Path tmp, String name, int n, List<String> nodeArgs) {
    return start(null, tmp, name, n, nodeArgs);
  }

  /**
   * As {@link #start(Path, String, int, List)}, on {@code zookeeper} as {@link
   * #start(ServerProcess, Path, String, int, List, java.util.function.Function)}.
   */
  public static ProcessCluster start(
      ServerProcess zookeeper, Path tmp, String name, int n, List<String> nodeArgs) {
    return start(zookeeper, tmp, name, n, nodeArgs, nodes -> List.of("--nodes", join(nodes)));
  }

  /**
   * As {@link #start(Path, String, int, List)}, the nodes keeping the global log only for the
   * server's default retention (a few seconds) rather than the whole test: the log is trimmed as in
   * production (see {@link ServerProcess#startWithLogTrims}), for the tests of bounded storage.
   */
  public static ProcessCluster startWithLogTrims(
      Path tmp, String name, int n, List<String> nodeArgs) {
    return startWithLogTrims(tmp, name, n, nodeArgs, nodes -> List.of("--nodes", join(nodes)));
  }

  /**
   * As {@link #startWithLogTrims(Path, String, int, List)}, the cluster initialised with the
   * arguments {@code layoutArgs} makes of the nodes.
   */
  public static ProcessCluster startWithLogTrims(
      Path tmp,
      String name,
      int n,
      List<String> nodeArgs,
      java.util.function.Function<List<Endpoint>, List<String>> layoutArgs) {
    ProcessCluster c = new ProcessCluster(name);
    c.nodeArgs = List.copyOf(nodeArgs);
    c.logTrims = true;
    try {
      c.startProcesses(tmp, n);
      c.init(layoutArgs.apply(c.nodes()));
      return c;
    } catch (RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  /**
   * Three node processes in the paper's degraded-mode layout, R = 1: the first holds the log and
   * sequences, the second is the only stream replica ({@code cluster init --stream-nodes}), the
   * third is in no chain (it answers, so the manager can hand it an emptied stream chain).
   */
  public static ProcessCluster startWithOneStreamNode(Path tmp, String name) {
    return startWithOneStreamNode(null, tmp, name);
  }

  /** As {@link #startWithOneStreamNode(Path, String)}, on {@code zookeeper} as {@link #start}. */
  public static ProcessCluster startWithOneStreamNode(
      ServerProcess zookeeper, Path tmp, String name) {
    return start(
        zookeeper,
        tmp,
        name,
        3,
        List.of(),
        nodes ->
            List.of(
                "--nodes",
                nodes.get(0).toString(),
                "--stream-nodes",
                nodes.get(1).toString(),
                "--replication",
                "1"));
  }

  /**
   * {@code n} node processes started, and the cluster initialised with {@code cluster init} and the
   * arguments {@code layoutArgs} makes of the nodes (which nodes hold what).
   */
  public static ProcessCluster start(
      Path tmp,
      String name,
      int n,
      List<String> nodeArgs,
      java.util.function.Function<List<Endpoint>, List<String>> layoutArgs) {
    return start(null, tmp, name, n, nodeArgs, layoutArgs);
  }

  /**
   * {@code vcorfu zookeeper} in a process of its own, on {@code dataDir}, once it is ready: one
   * ZooKeeper for several clusters in turn (see {@link #start(ServerProcess, Path, String, int,
   * List, java.util.function.Function)}), each under a name of its own. The caller ends it.
   */
  public static ServerProcess startZooKeeper(Path dataDir) {
    int zkPort = ServerProcess.freePort();
    return ServerProcess.startCli(
            zkPort,
            List.of(
                "zookeeper", "--port", Integer.toString(zkPort), "--data-dir", dataDir.toString()))
        .awaitReady();
  }

  /**
   * As {@link #start(Path, String, int, List, java.util.function.Function)}, on the running {@code
   * zookeeper} of {@link #startZooKeeper} rather than one of its own (null: one of its own), which
   * {@link #close} leaves running; {@code name} must be new to that ZooKeeper.
   */
  public static ProcessCluster start(
      ServerProcess zookeeper,
      Path tmp,
      String name,
      int n,
      List<String> nodeArgs,
      java.util.function.Function<List<Endpoint>, List<String>> layoutArgs) {
    ProcessCluster c = new ProcessCluster(name);
    c.nodeArgs = List.copyOf(nodeArgs);
    if (zookeeper != null) {
      c.zookeeper = zookeeper.endpoint().toString();
      c.ownZooKeeper = false;
    }
    try {
      c.startProcesses(tmp, n);
      c.init(layoutArgs.apply(c.nodes()));
      return c;
    } catch (RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  private void startProcesses(Path tmp, int n) {
    if (ownZooKeeper) {
      ServerProcess zk = startZooKeeper(tmp.resolve("zk"));
      processes.add(zk);
      zookeeper = zk.endpoint().toString();
    }
    this.tmp = tmp;
    for (int i = 0; i < n; i++) {
      ServerProcess p = startNode(ServerProcess.freePort(), tmp.resolve("node-" + started++));
      nodes.add(p.endpoint());
    }
    nodeProcesses.forEach(ServerProcess::awaitReady);
  }

  private ServerProcess startNode(int port, Path dataDir) {
    return startNode(port, dataDir, nodeArgs);
  }

  private ServerProcess startNode(int port, Path dataDir, List<String> extraArgs) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--data-dir",
                dataDir.toString(),
                "--plaintext",
                "--zookeeper",
                zookeeper,
                "--cluster",
                name,
                "--probe-interval-ms",
                "100",
                "--failure-timeout-ms",
                "1500",
                "--layout-lease-ms",
                "500"));
    args.addAll(extraArgs);
    ServerProcess p =
        logTrims ? ServerProcess.startWithLogTrims(port, args) : ServerProcess.start(port, args);
    processes.add(p);
    nodeProcesses.add(p);
    dataDirs.put(p.endpoint(), dataDir);
    return p;
  }

  /**
   * Starts one more node of the cluster, outside its layout (a spare to add), on a data directory
   * of its own; returns it once it is ready.
   */
  public ServerProcess startExtraNode() {
    return startNode(ServerProcess.freePort(), tmp.resolve("node-" + started++)).awaitReady();
  }

  /**
   * Starts the node at {@code e} again (its process must have exited), on its data directory, or on
   * an empty one with {@code wiped}; returns it once it is ready.
   */
  public ServerProcess restart(Endpoint e, boolean wiped) throws java.io.IOException {
    return startAgain(e, wiped, nodeArgs).awaitReady();
  }

  /**
   * As {@link #restart}, but with {@code args} in place of the cluster's node arguments, and
   * without waiting for the node to be ready (a returning node copies before it serves).
   */
  public ServerProcess startAgain(Endpoint e, boolean wiped, List<String> args)
      throws java.io.IOException {
    ServerProcess old = processOf(e);
    if (old.isAlive()) {
      throw new IllegalStateException(e + " is still running");
    }
    Path dir = dataDirs.get(e);
    if (wiped && java.nio.file.Files.exists(dir)) {
      try (var paths = java.nio.file.Files.walk(dir)) {
        for (Path f : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          java.nio.file.Files.delete(f);
        }
      }
    }
    ServerProcess fresh = startNode(e.port(), dir, args);
    nodeProcesses.remove(old);
    return fresh;
  }

  /**
   * True when {@code node} serves in {@code l} (not rebuilding), no node is removed, and every
   * chain of every segment has its full R replicas.
   */
  public static boolean fullStrengthWith(Layout l, Endpoint node) {
    return l.allServers().contains(node)
        && !l.isRebuilding(node)
        && l.removed().isEmpty()
        && l.segments().stream()
            .allMatch(
                s ->
                    s.log().stream().allMatch(ch -> ch.size() == l.replication())
                        && s.stream().stream().allMatch(ch -> ch.size() == l.replication()));
  }

  /** {@code nodes} as {@code host:port,host:port,...}. */
  public static String join(List<Endpoint> nodes) {
    return nodes.stream().map(Endpoint::toString).collect(Collectors.joining(","));
  }

  private void init(List<String> layoutArgs) {
    List<String> args =
        new ArrayList<>(List.of("cluster", "init", "--zookeeper", zookeeper, "--cluster", name));
    args.addAll(layoutArgs);
    CliRun init = CliRun.of(args);
    assertThat(init.code()).as("cluster init said: %s %s", init.out(), init.err()).isZero();
    assertThat(init.out()).contains("sequencer serving");
  }

  /** The data directory of node {@code e}. */
  public Path dataDir(Endpoint e) {
    return dataDirs.get(e);
  }

  /** The nodes, in the order they were started (the first layout's order). */
  public List<Endpoint> nodes() {
    return List.copyOf(nodes);
  }

  /** Every node as {@code host:port,host:port,...}. */
  public String endpointList() {
    return nodes.stream().map(Endpoint::toString).collect(Collectors.joining(","));
  }

  public NettyTransport transport() {
    return transport;
  }

  /** The (latest) process of node {@code e}. */
  public ServerProcess processOf(Endpoint e) {
    return nodeProcesses.stream()
        .filter(p -> p.endpoint().equals(e))
        .reduce((a, b) -> b)
        .orElseThrow();
  }

  /** A node other than {@code e}. */
  public Endpoint otherThan(Endpoint e) {
    return nodes.stream().filter(n -> !n.equals(e)).findFirst().orElseThrow();
  }

  /** The newest layout any node answers with (dead and paused nodes do not answer). */
  public Layout newestLayout() throws Exception {
    NodeCalls calls = layoutCalls();
    List<java.util.concurrent.CompletableFuture<String>> answers = new ArrayList<>();
    for (Endpoint n : nodes) {
      answers.add(calls.layoutJson(n));
    }
    Layout newest = null;
    for (var answer : answers) {
      try {
        Layout l = Layout.fromJson(answer.get(2, TimeUnit.SECONDS));
        if (newest == null || l.epoch() > newest.epoch()) {
          newest = l;
        }
      } catch (Exception e) {
        // dead or paused
      }
    }
    if (newest == null) {
      throw new IllegalStateException("no node answered with a layout");
    }
    return newest;
  }

  /**
   * The client {@link #newestLayout} asks the nodes with, opened once: {@link #awaitLayout} polls
   * every 100 ms, and a new client each time cost a connection to every node per poll. It connects
   * again to a node that was restarted; a paused node costs a poll its one-second request timeout.
   */
  private synchronized NodeCalls layoutCalls() {
    if (layoutCalls == null) {
      layoutCalls =
          new NodeCalls(
              transport.newClient(
                  ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(1))));
    }
    return layoutCalls;
  }

  /** Waits (up to 60 s) until the newest layout satisfies {@code condition}; returns it. */
  public Layout awaitLayout(Predicate<Layout> condition) {
    try {
      return Awaitility.await("layout change")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .until(this::newestLayout, condition);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "; the managers' removals: " + removals(), e);
    }
  }

  /**
   * The lines in which a manager of this cluster removed a node and said why, or said it would not
   * remove one, from every process it started, oldest first (the last 10; "none" if there are
   * none): what a wait for a layout that never came needs first.
   */
  String removals() {
    List<String> lines = new ArrayList<>();
    for (ServerProcess p : processes) {
      for (String l : p.output()) {
        if (l.contains("); removing (epoch") || l.contains("; not removing ")) {
          lines.add(l);
        }
      }
    }
    lines.sort(null); // each line begins with its time (ISO 8601, UTC)
    return lines.isEmpty()
        ? "none"
        : String.join(" | ", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
  }

  @Override
  public void close() {
    for (ServerProcess p : processes) {
      try {
        p.resume();
      } catch (Exception e) {
        // it has exited already
      }
      p.close();
    }
    transport.close();
  }
}
