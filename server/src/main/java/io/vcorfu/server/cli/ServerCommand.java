package io.vcorfu.server.cli;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vcorfu server}: runs one node until interrupted. */
@Command(
    name = "server",
    description = "Run a node. With no --layout it is a single node hosting every role.")
final class ServerCommand implements Callable<Integer> {
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

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
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
    Path dir = memory ? null : (dataDir != null ? dataDir : Path.of("vcorfu-data"));
    NodeConfig config =
        new NodeConfig(
                new Endpoint(host, port),
                dir,
                layout,
                fsyncIntervalMs == null ? null : Duration.ofMillis(fsyncIntervalMs))
            .withViews(classpath, checkpointEvery, Duration.ofMillis(checkpointIntervalMs));
    NettyTransport transport = new NettyTransport();
    Node node = Node.start(config, transport);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  node.close();
                  transport.close();
                  stopped.countDown();
                },
                "vcorfu-shutdown"));
    node.ready().join();
    System.out.println(
        "vcorfu node "
            + node.endpoint()
            + " ready (epoch "
            + node.layout().epoch()
            + ", "
            + (dir == null ? "in memory" : "data in " + dir.toAbsolutePath())
            + ")");
    System.out.flush();
    stopped.await();
    return 0;
  }
}
