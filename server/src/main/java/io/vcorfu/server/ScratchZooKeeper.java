package io.vcorfu.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;

/**
 * A one-member ZooKeeper server inside this process, for a throwaway cluster such as a node's
 * {@link WarmUp}: plaintext, on a free port of 127.0.0.1, no admin port, its snapshots and log in a
 * directory the caller owns and removes after {@link #close}. Not for data anyone keeps: {@code
 * vcorfu zookeeper} is the product's ZooKeeper.
 */
final class ScratchZooKeeper implements AutoCloseable {
  private static final long START_SECONDS = 30;

  private final ZooKeeperThread server;
  private final String connectString;

  private ScratchZooKeeper(ZooKeeperThread server, int port) {
    this.server = server;
    this.connectString = "127.0.0.1:" + port;
  }

  /**
   * Starts a server keeping its files in {@code dir} (made if missing) and returns once it accepts
   * connections.
   *
   * @throws IOException if the directory cannot be made or the server does not start within 30 s
   */
  static ScratchZooKeeper start(Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    int port = Scratch.freeLocalPort();
    Path cfg = dir.toAbsolutePath().resolve("zoo.cfg");
    Files.writeString(
        cfg,
        String.join(
            "\n",
            "tickTime=2000",
            "dataDir=" + dir.toAbsolutePath(),
            "clientPort=" + port,
            "clientPortAddress=127.0.0.1",
            "admin.enableServer=false",
            ""));
    // The admin server is a system-wide setting of ZooKeeper's; it has no use in this process.
    System.setProperty("zookeeper.admin.enableServer", "false");
    ServerConfig config = new ServerConfig();
    try {
      config.parse(cfg.toString());
    } catch (QuorumPeerConfig.ConfigException e) {
      throw new IOException("the scratch ZooKeeper's configuration: " + e.getMessage(), e);
    }
    ZooKeeperThread server = new ZooKeeperThread(config, "vcorfu-scratch-zookeeper", true);
    ScratchZooKeeper started = new ScratchZooKeeper(server, port);
    if (!server.awaitListening("127.0.0.1", port, Duration.ofSeconds(START_SECONDS))) {
      started.close();
      throw new IOException(
          "the scratch ZooKeeper did not start"
              + (server.failure() == null
                  ? " within " + START_SECONDS + " s"
                  : ": " + server.failure()),
          server.failure());
    }
    return started;
  }

  /** The connect string of the server, {@code 127.0.0.1:PORT}. */
  String connectString() {
    return connectString;
  }

  /** Stops accepting and serving (the sessions of its clients end with it) and waits for it. */
  @Override
  public void close() {
    server.close();
    try {
      server.join(Duration.ofSeconds(START_SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
