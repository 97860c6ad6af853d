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

  /**
   * The identity of {@code --zookeeper-auth}, or null.
   *
   * @throws IllegalArgumentException naming the file and what to write in it
   */
  ZkAuth auth() {
    return zookeeperAuth == null ? null : ZkAuth.fromFile(zookeeperAuth);
  }
}
