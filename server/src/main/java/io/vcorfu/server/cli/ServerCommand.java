package io.vcorfu.server.cli;

import io.vcorfu.layout.ZkAuth;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.cluster.ClusterConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vcorfu server}: runs one node until interrupted. */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    description = "Run a node. With no --layout it is a single node hosting every role.")
final class ServerCommand implements Callable<Integer> {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ServerCommand.class);

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Address to listen on (default ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = "--port",
      defaultValue = "9000",
      description = "Port to listen on (default ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--data-dir",
      description = "Directory for durable state (default ./vcorfu-data).")
  Path dataDir;

  @Option(
      names = "--memory",
      description = "Keep everything in memory (nothing survives a restart).")
  boolean memory;

  @Option(names = "--layout", description = "Layout file (JSON) naming this node's roles.")
  Path layout;

  @Option(
      names = "--fsync-interval-ms",
      description =
          "Acknowledge writes before fsync and fsync every N ms (default: fsync before every"
              + " acknowledgement, group-committed).")
  Long fsyncIntervalMs;

  @Option(
      names = "--classpath",
      split = "${sys:path.separator}",
      description =
          "Where the remote-view host loads object classes from: directories and jars, separated by"
              + " the platform's path separator (default: the server's own class path).")
  java.util.List<Path> classpath;

  @Option(
      names = "--checkpoint-every",
      defaultValue = "10000",
      description =
          "Checkpoint each hosted remote-view object after this many updates (default"
              + " ${DEFAULT-VALUE}).")
  long checkpointEvery;

  @Option(
      names = "--checkpoint-interval-ms",
      defaultValue = "60000",
      description =
          "Also checkpoint changed hosted objects at this interval (default ${DEFAULT-VALUE}).")
  long checkpointIntervalMs;

  @Option(
      names = "--log-retention-ms",
      defaultValue = "3000",
      description =
          "How long the global log keeps an entry's log copy (the streams keep their own history,"
              + " trimmed after checkpoints); raise it to read the global log further back"
              + " (default ${DEFAULT-VALUE}).")
  long logRetentionMs;

  @picocli.CommandLine.Mixin RetentionFlags retention = new RetentionFlags();

  @picocli.CommandLine.Mixin RemoteClassFlags remoteClasses = new RemoteClassFlags();

  @picocli.CommandLine.Mixin CpuScheduling scheduling = new CpuScheduling();

  @picocli.CommandLine.Mixin WarmUpFlag warmUp = new WarmUpFlag();

  @Option(
      names = "--segment-size-mb",
      defaultValue = "16",
      description =
          "Length of the data directory's segment files, 1 to 1024 MiB (default"
              + " ${DEFAULT-VALUE}): smaller ones are compacted sooner, larger ones make fewer"
              + " files. Applies to segments created from now on.")
  long segmentSizeMb;

  @Option(
      names = "--compaction-rate-mb",
      defaultValue = "16",
      description =
          "The most MiB per second compaction copies, 1 to 10240 (default ${DEFAULT-VALUE}):"
              + " lower leaves more of the disk to the foreground, higher gives space back sooner.")
  long compactionRateMb;

  @Option(
      names = "--disk-free-min-mb",
      defaultValue = "0",
      description =
          "Refuse writes while the data directory's disk has less than this many MiB free (the"
              + " disk-space alarm, cleared on its own once space is back); 0, the default: 256"
              + " MiB or 2%% of the disk, whichever is more.")
  long diskFreeMinMb;

  @Option(
      names = "--zookeeper",
      description =
          "Run as a node of a cluster whose layout is agreed in this ZooKeeper ensemble"
              + " (host:port[,host:port...]); needs --cluster, excludes --layout.")
  String zookeeper;

  @Option(names = "--cluster", description = "The cluster's name (with --zookeeper).")
  String cluster;

  @Option(
      names = "--zookeeper-auth",
      paramLabel = "FILE",
      description =
          "The cluster's ZooKeeper identity (with --zookeeper): a file of one line user:password"
              + " (digest). The node authenticates with it; znodes it creates are that identity's"
              + " alone.")
  Path zookeeperAuth;

  @picocli.CommandLine.Mixin ZooKeeperTlsFlags zookeeperTls = new ZooKeeperTlsFlags();

  @Option(
      names = "--probe-interval-ms",
      defaultValue = "50",
      description =
          "Cluster mode: how often the manager probes every node (default ${DEFAULT-VALUE}).")
  long probeIntervalMs;

  @Option(
      names = "--failure-timeout-ms",
      defaultValue = "300",
      description =
          "Cluster mode: how long a node may leave probes unanswered before the manager removes it"
              + " from the layout; longer (up to twice that, at least 1 s) for a node whose answers"
              + " have been slow, and at least 1 s for a node that started less than 10 s ago (the"
              + " timeout adapts to the round trips the probes see) (default ${DEFAULT-VALUE}).")
  long failureTimeoutMs;

  @Option(
      names = "--layout-lease-ms",
      defaultValue = "250",
      description =
          "Cluster mode: a node serves only while it has confirmed its layout with ZooKeeper within"
              + " this time; a sequencer that takes over from another node waits as long before"
              + " issuing, and as long plus the longest read lease (10 s) when clients use read"
              + " leases (default ${DEFAULT-VALUE}).")
  long layoutLeaseMs;

  @Option(
      names = "--rebuild-rate-mb",
      defaultValue = "128",
      description =
          "Cluster mode: how many MiB per second this node copies at most while it is a"
              + " rebuilding replica, so that foreground requests keep most of the disk and network"
              + " (default ${DEFAULT-VALUE}).")
  long rebuildRateMb;

  @Option(
      names = "--rebuild-max-p99-ms",
      defaultValue = "20",
      description =
          "Cluster mode: while this node rebuilds a replica, it halves its copy rate whenever the"
              + " 99th percentile of foreground writes (tokens, writes, commits) on the nodes it"
              + " copies from or to rises above this many milliseconds, and raises it again, up to"
              + " --rebuild-rate-mb, while it is below three quarters of it; a copy's first 250 ms"
              + " worth of bytes at --rebuild-rate-mb go at that rate, the rest starts at a"
              + " sixteenth of it and doubles its rate while the foreground stays below that; 0"
              + " copies at --rebuild-rate-mb regardless (default ${DEFAULT-VALUE}).")
  long rebuildMaxP99Ms;

  @Option(
      names = "--member-heal-delay-ms",
      defaultValue = "30000",
      description =
          "Cluster mode, on the manager: how long a chain may lack a replica, with no spare or"
              + " returning node answering, before another node of the cluster that is not in the"
              + " chain joins it as a rebuilding replica and copies it (a failed node that returns"
              + " sooner copies only what it missed); 0 heals onto members at once (default"
              + " ${DEFAULT-VALUE}).")
  long memberHealDelayMs;

  @Option(
      names = "--pre-join-copy-max-s",
      defaultValue = "60",
      description =
          "Cluster mode: a node that starts after the manager removed it first copies, before it"
              + " serves, the streams of the chains it will rejoin, while those chains' other"
              + " replicas carry the writes; it starts serving after at most this many seconds"
              + " of copying, and its rebuild after the join copies the rest; 0 joins at once"
              + " (default ${DEFAULT-VALUE}).")
  long preJoinCopyMaxS;

  @Option(
      names = "--zookeeper-session-ms",
      defaultValue = "10000",
      description =
          "Cluster mode: the node's ZooKeeper session timeout; a node that crashed keeps its place"
              + " in the manager election this long, though the other nodes act in its place as"
              + " soon as it is down. When fewer than half of the nodes survive, a dead node is"
              + " removed only once its session has expired too, so this is also how long the last"
              + " survivors wait before they serve again. ZooKeeper grants 2 to 20 ticks (default"
              + " ${DEFAULT-VALUE}).")
  long zookeeperSessionMs;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "Serve /metrics (Prometheus), /health and a status page over HTTP on this port, on"
              + " --host (off unless given; 0 picks a free port).")
  Integer metricsPort;

  @Option(
      names = "--metrics-host",
      paramLabel = "HOST",
      description =
          "Address the HTTP port listens on (default: --host); 0.0.0.0 for every interface, as in a"
              + " container whose health check asks 127.0.0.1.")
  String metricsHost;

  @picocli.CommandLine.Mixin ServerTlsFlags tlsFlags = new ServerTlsFlags();

  /** The levels {@code --log-level} takes. */
  enum LogLevel {
    trace,
    debug,
    info,
    warn,
    error
  }

  @Option(
      names = "--log-level",
      paramLabel = "LEVEL",
      description =
          "How much the node logs (on standard error, each line with its time):"
              + " ${COMPLETION-CANDIDATES} (default info).")
  LogLevel logLevel;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Flags.port(spec, "--port", port);
    if (logLevel != null) {
      Logging.level(logLevel.name());
    }
    if (memory && dataDir != null) {
      spec.commandLine()
          .getErr()
          .println("vcorfu server: --memory and --data-dir exclude each other");
      return 2;
    }
    if (checkpointEvery < 1 || checkpointIntervalMs < 1) {
      spec.commandLine()
          .getErr()
          .println(
              "vcorfu server: --checkpoint-every and --checkpoint-interval-ms must be at least 1");
      return 2;
    }
    if (warmUp.seconds < 0 || warmUp.seconds > io.vcorfu.server.WarmUp.MAX_SECONDS) {
      spec.commandLine().getErr().println("vcorfu server: " + warmUp.rangeError());
      return 2;
    }
    if (logRetentionMs < 1) {
      spec.commandLine().getErr().println("vcorfu server: --log-retention-ms must be at least 1");
      return 2;
    }
    if (diskFreeMinMb < 0) {
      spec.commandLine().getErr().println("vcorfu server: --disk-free-min-mb must be 0 or more");
      return 2;
    }
    if (segmentSizeMb < 1 || segmentSizeMb > 1024) {
      spec.commandLine()
          .getErr()
          .println("vcorfu server: --segment-size-mb must be between 1 and 1024");
      return 2;
    }
    if (compactionRateMb < 1 || compactionRateMb > 10240) {
      spec.commandLine()
          .getErr()
          .println("vcorfu server: --compaction-rate-mb must be between 1 and 10240");
      return 2;
    }
    if (zookeeper != null && retention.given()) {
      spec.commandLine()
          .getErr()
          .println(
              "vcorfu server: a cluster node announces its cluster's retention; set it with"
                  + " `vcorfu cluster retention`, not --retain-versions/--retain-time");
      return 2;
    }
    if ((zookeeperAuth != null || zookeeperTls.given()) && zookeeper == null) {
      String what = zookeeperAuth != null ? "--zookeeper-auth goes" : "--zookeeper-tls-* go";
      spec.commandLine()
          .getErr()
          .println("vcorfu server: " + what + " with --zookeeper and --cluster");
      return 2;
    }
    if ((zookeeper == null) != (cluster == null)) {
      spec.commandLine().getErr().println("vcorfu server: --zookeeper and --cluster go together");
      return 2;
    }
    if (zookeeper != null && layout != null) {
      spec.commandLine()
          .getErr()
          .println(
              "vcorfu server: a cluster node (--zookeeper) follows its cluster's agreed layout and"
                  + " takes no --layout file");
      return 2;
    }
    io.vcorfu.protocol.TlsOptions tls;
    io.vcorfu.server.access.AccessConfig access;
    io.vcorfu.server.access.TokenFile tokens;
    try {
      tls = tlsFlags.options();
      access = tlsFlags.access(tls, zookeeper != null);
      tokens = tlsFlags.tokens(tls);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("vcorfu server: " + e.getMessage());
      return 2;
    }
    if (zookeeper != null && tls == null && !tlsFlags.plaintext) {
      spec.commandLine()
          .getErr()
          .println(
              "vcorfu server: a cluster node serves TLS: give --tls-cert, --tls-key and --tls-ca"
                  + " (see docs/security.md), or --plaintext to serve without encryption or"
                  + " authentication");
      return 2;
    }
    Path dir = memory ? null : (dataDir != null ? dataDir : Path.of("vcorfu-data"));
    Flags.directory(spec, "--data-dir", dir);
    String busy = Flags.portInUse(host, port);
    if (busy != null) {
      // Before the node locks (and so creates) its data directory: a refused start leaves nothing.
      spec.commandLine()
          .getErr()
          .println("vcorfu: cannot listen on " + host + ":" + port + ": " + busy);
      return 1;
    }
    NodeConfig config =
        new NodeConfig(
                new Endpoint(host, port),
                dir,
                layout,
                fsyncIntervalMs == null ? null : Duration.ofMillis(fsyncIntervalMs))
            .withViews(classpath, checkpointEvery, Duration.ofMillis(checkpointIntervalMs))
            .withLogRetention(Duration.ofMillis(logRetentionMs))
            .withRetention(retention.over(io.vcorfu.client.ClusterRetention.NONE))
            .withSegmentBytes(segmentSizeMb << 20)
            .withCompactionRate(compactionRateMb << 20)
            .withAccess(access)
            .withRemoteClasses(remoteClasses.config());
    if (zookeeper != null) {
      try {
        config =
            config.inCluster(
                ClusterConfig.of(zookeeper, cluster)
                    .withProbing(
                        Duration.ofMillis(probeIntervalMs), Duration.ofMillis(failureTimeoutMs))
                    .withLayoutLease(Duration.ofMillis(layoutLeaseMs))
                    .withRebuildRate(Math.multiplyExact(rebuildRateMb, 1024L * 1024))
                    .withRebuildForegroundP99(Duration.ofMillis(rebuildMaxP99Ms))
                    .withMemberHealDelay(Duration.ofMillis(memberHealDelayMs))
                    .withPreJoinCopyLimit(Duration.ofSeconds(preJoinCopyMaxS))
                    .withSessionTimeout(Duration.ofMillis(zookeeperSessionMs))
                    .withZookeeperAuth(
                        zookeeperAuth == null ? null : ZkAuth.fromFile(zookeeperAuth))
                    .withZookeeperTls(zookeeperTls.tls()));
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("vcorfu server: " + e.getMessage());
        return 2;
      }
    }
    NettyTransport transport;
    try {
      transport = new NettyTransport(tls);
      if (tokens != null) {
        transport.acceptBearerTokens(tokens);
      }
    } catch (IllegalArgumentException e) {
      // The files changed since they were checked above.
      spec.commandLine().getErr().println("vcorfu server: " + e.getMessage());
      return 2;
    }
    scheduling.applyToThisProcess();
    warmUp.run(config, zookeeper != null || layout != null, ServerCommand::say);
    Node node = Node.start(config, transport);
    // A plaintext node with no tokens runs callers' one-shot commands (see CommandHost, OneShot).
    CommandHost commands = CommandHost.serve(node, tls, tokens);
    if (node.diskAlarm() != null && diskFreeMinMb > 0) {
      node.diskAlarm().threshold(Math.multiplyExact(diskFreeMinMb, 1024L * 1024));
    }
    if (dir != null) {
      // Once the node holds its data directory: a second node refused it writes nothing there.
      Logging.toFile(dir.resolve("logs"));
    }
    java.util.concurrent.atomic.AtomicReference<io.vcorfu.server.NodeHttp> http =
        new java.util.concurrent.atomic.AtomicReference<>();
    NettyTransport served = transport;
    // Closing finishes or fails every request in flight and syncs what was written.
    NodeStop stopper =
        new NodeStop("vcorfu node " + node.endpoint(), ServerCommand::say)
            .then("HTTP endpoints", http::get)
            .then("command host", () -> commands)
            .then("node", () -> node)
            .then("transport", () -> served);
    java.util.function.Consumer<String> stop = stopper::stop;
    // SIGTERM and SIGINT stop the node cleanly and the process exits 0; any other end of the JVM
    // still closes it.
    for (String signal : List.of("TERM", "INT")) {
      Signals.on(
          signal, () -> new Thread(() -> stop.accept("SIG" + signal), "vcorfu-stop").start());
    }
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> stop.accept("shutdown"), "vcorfu-shutdown"));
    node.ready().join();
    if (metricsPort != null) {
      String httpHost = metricsHost != null ? metricsHost : host;
      io.vcorfu.server.NodeHttp h =
          io.vcorfu.server.NodeHttp.start(node, httpHost, metricsPort, transport.tls(), tokens);
      http.set(h);
      System.out.println(
          "vcorfu node "
              + node.endpoint()
              + " metrics at "
              + h.scheme()
              + "://"
              + httpHost
              + ":"
              + h.port()
              + "/metrics, health at /health, status page at /");
    }
    String where = dir == null ? "in memory" : "data in " + dir.toAbsolutePath();
    String state =
        node.clustered()
            ? "cluster " + cluster + " at ZooKeeper " + zookeeper
            : "epoch " + node.layout().epoch();
    String security = tlsFlags.describe(transport.tls(), access);
    say(
        "vcorfu node "
            + node.endpoint()
            + " ready ("
            + state
            + ", "
            + where
            + ", "
            + security
            + ")");
    return stopper.await();
  }

  /**
   * A step of the node's life a person or a script waits for (ready, stopping, stopped): a plain
   * line on standard output, and the same at INFO in the log (console and log file, timestamped).
   */
  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
    LOG.info(line);
  }
}
