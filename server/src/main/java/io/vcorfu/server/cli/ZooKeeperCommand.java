package io.vcorfu.server.cli;

import io.vcorfu.server.ZooKeeperThread;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.zookeeper.server.ServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vcorfu zookeeper}: a real single-server ZooKeeper (ZooKeeper's own server) for development
 * and tests, listening on one address. Production clusters point their nodes at their own ensemble.
 */
@Command(
    name = "zookeeper",
    mixinStandardHelpOptions = true,
    description =
        "Run a single-server ZooKeeper for development and tests (production clusters use their"
            + " own ensemble). Prints a line containing 'ready' once it serves.")
final class ZooKeeperCommand implements Callable<Integer> {
  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Address to listen on (default ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = "--port",
      defaultValue = "2181",
      description = "Port to listen on (default ${DEFAULT-VALUE}).")
  int port;

  @Spec CommandSpec spec;

  @Option(
      names = "--data-dir",
      defaultValue = "vcorfu-zookeeper",
      description = "Where ZooKeeper keeps its snapshots and log (default ./${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(
      names = "--require-auth",
      description =
          "Serve only clients that authenticate (the digest scheme: nodes and commands given"
              + " --zookeeper-auth FILE); others are refused.")
  boolean requireAuth;

  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      description =
          "Serve only TLS, with this certificate (PEM); needs --tls-key and --tls-ca. Clients"
              + " connect with --zookeeper-tls-ca, --zookeeper-tls-cert and --zookeeper-tls-key.")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      description = "The private key of --tls-cert (PEM, unencrypted PKCS#8).")
  Path tlsKey;

  @Option(
      names = "--tls-ca",
      paramLabel = "FILE",
      description = "The CA (PEM) whose certificates clients must present (mutual TLS).")
  Path tlsCa;

  @Override
  public Integer call() throws Exception {
    Flags.port(spec, "--port", port);
    Flags.directory(spec, "--data-dir", dataDir);
    boolean anyTls = tlsCert != null || tlsKey != null || tlsCa != null;
    if (anyTls && (tlsCert == null || tlsKey == null || tlsCa == null)) {
      spec.commandLine()
          .getErr()
          .println("vcorfu zookeeper: TLS needs --tls-cert, --tls-key and --tls-ca together");
      return VcorfuCli.USAGE;
    }
    io.vcorfu.layout.ZkTls tls;
    try {
      tls = anyTls ? new io.vcorfu.layout.ZkTls(tlsCa, tlsCert, tlsKey) : null;
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("vcorfu zookeeper: " + e.getMessage());
      return VcorfuCli.USAGE;
    }
    Files.createDirectories(dataDir);
    Path cfg = dataDir.toAbsolutePath().resolve("zoo.cfg");
    Files.writeString(
        cfg,
        String.join(
            "\n",
            "tickTime=2000",
            "initLimit=10",
            "syncLimit=5",
            "dataDir=" + dataDir.toAbsolutePath(),
            (tls == null ? "clientPort=" : "secureClientPort=") + port,
            (tls == null ? "clientPortAddress=" : "secureClientPortAddress=") + host,
            "admin.enableServer=false",
            "4lw.commands.whitelist=ruok,srvr,stat",
            ""));
    // The admin server (an HTTP port of its own) is off: this ZooKeeper listens on one port only.
    System.setProperty("zookeeper.admin.enableServer", "false");
    if (tls != null) {
      // Only the secure port is opened; every client must present a certificate of the CA.
      System.setProperty(
          "zookeeper.serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
      System.setProperty(
          "zookeeper.authProvider.x509",
          "org.apache.zookeeper.server.auth.X509AuthenticationProvider");
      System.setProperty("zookeeper.ssl.keyStore.location", tls.identityPem().toString());
      System.setProperty("zookeeper.ssl.keyStore.type", "PEM");
      System.setProperty("zookeeper.ssl.trustStore.location", tls.ca().toString());
      System.setProperty("zookeeper.ssl.trustStore.type", "PEM");
      System.setProperty("zookeeper.ssl.clientAuth", "need");
    }
    if (requireAuth) {
      System.setProperty("zookeeper.enforce.auth.enabled", "true");
      System.setProperty("zookeeper.enforce.auth.schemes", "digest");
    }
    ServerConfig config = new ServerConfig();
    config.parse(cfg.toString());
    ZooKeeperThread server = new ZooKeeperThread(config, "zookeeper", false);
    // SIGTERM and SIGINT stop ZooKeeper cleanly and the process exits 0, as a node does.
    for (String signal : java.util.List.of("TERM", "INT")) {
      Signals.on(signal, () -> new Thread(server::close, "vcorfu-zookeeper-stop").start());
    }
    if (!server.awaitListening(host, port, Duration.ofSeconds(60))) {
      Throwable e = server.failure();
      System.err.println(
          "vcorfu: ZooKeeper did not start on "
              + host
              + ":"
              + port
              + (e == null ? "" : ": " + VcorfuCli.describe(e)));
      return 1;
    }
    System.out.println(
        "vcorfu zookeeper "
            + host
            + ":"
            + port
            + " ready (data in "
            + dataDir.toAbsolutePath()
            + (requireAuth ? ", clients must authenticate: digest" : "")
            + (tls == null ? "" : ", TLS only, client certificates required")
            + ")");
    System.out.flush();
    server.join(null);
    Throwable e = server.failure();
    if (e != null) {
      System.err.println("vcorfu: ZooKeeper stopped: " + VcorfuCli.describe(e));
      return 1;
    }
    return 0;
  }
}
