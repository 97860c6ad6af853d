package io.vcorfu.server.cli;

import io.vcorfu.layout.ZkAuth;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --zookeeper} and {@code --cluster}: the cluster a command changes in ZooKeeper. */
final class ClusterInZooKeeper {
  @Option(
      names = "--zookeeper",
      required = true,
      description = "ZooKeeper connect string (host:port[,host:port...]).")
  String zookeeper;

  @Option(names = "--cluster", required = true, description = "The cluster's name.")
  String cluster;

  @Option(
      names = "--zookeeper-auth",
      paramLabel = "FILE",
      description =
          "The cluster's ZooKeeper identity: a file of one line user:password (digest). Znodes"
              + " created with it are that identity's alone; a cluster created with it needs it"
              + " on every node and command.")
  Path zookeeperAuth;

  @picocli.CommandLine.Mixin ZooKeeperTlsFlags zookeeperTls = new ZooKeeperTlsFlags();

  /**
   * The identity of {@code --zookeeper-auth}, or null.
   *
   * @throws IllegalArgumentException naming the file and what to write in it
   */
  ZkAuth auth() {
    return zookeeperAuth == null ? null : ZkAuth.fromFile(zookeeperAuth);
  }

  /**
   * The TLS to ZooKeeper of the {@code --zookeeper-tls-*} options, or null.
   *
   * @throws IllegalArgumentException when only some are given or a file cannot be read
   */
  io.vcorfu.layout.ZkTls tls() {
    return zookeeperTls.tls();
  }
}
