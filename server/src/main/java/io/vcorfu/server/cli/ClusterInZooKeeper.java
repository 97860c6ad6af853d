package io.vcorfu.server.cli;

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
}
