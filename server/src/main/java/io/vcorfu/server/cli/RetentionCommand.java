package io.vcorfu.server.cli;

import io.vcorfu.client.ClusterRetention;
import io.vcorfu.layout.LayoutNotFoundException;
import io.vcorfu.layout.ZkAuth;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.server.cluster.RetentionZnode;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vcorfu cluster retention}: show or set the history a cluster keeps. */
@Command(
    name = "retention",
    mixinStandardHelpOptions = true,
    description =
        "Show or set a cluster's retention: the history every runtime without its own keeps"
            + " readable below each object's newest checkpoint. Without --retain-versions,"
            + " --retain-time or --clear it prints the retention; a flag not given keeps its"
            + " value. Runtimes follow a change within a few seconds; history already trimmed"
            + " does not come back.")
final class RetentionCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin ClusterInZooKeeper where = new ClusterInZooKeeper();

  @Mixin RetentionFlags flags = new RetentionFlags();

  @Option(
      names = "--clear",
      description = "Remove the cluster's retention: every runtime keeps its own (20 updates).")
  boolean clear;

  @Option(
      names = "--timeout-ms",
      defaultValue = "10000",
      description = "How long to wait for ZooKeeper (default ${DEFAULT-VALUE}).")
  long timeoutMs;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    String zookeeper = where.zookeeper;
    String cluster = where.cluster;
    PrintWriter err = spec.commandLine().getErr();
    if (clear && flags.given()) {
      err.println("vcorfu cluster retention: give --clear or the values to set, not both");
      return VcorfuCli.USAGE;
    }
    if (timeoutMs < 1) {
      err.println("vcorfu cluster retention: --timeout-ms must be at least 1");
      return VcorfuCli.USAGE;
    }
    ZkAuth auth;
    io.vcorfu.layout.ZkTls zkTls;
    try {
      auth = where.auth();
      zkTls = where.tls();
    } catch (IllegalArgumentException e) {
      err.println("vcorfu cluster retention: " + e.getMessage());
      return VcorfuCli.USAGE;
    }
    try (ZkLayoutStore store =
        ZkLayoutStore.connect(zookeeper, cluster, Duration.ofMillis(timeoutMs), auth, zkTls)) {
      try {
        store.get().get(timeoutMs, TimeUnit.MILLISECONDS);
      } catch (ExecutionException | CompletionException e) {
        if (e.getCause() instanceof LayoutNotFoundException) {
          err.println(
              "vcorfu cluster retention: there is no cluster "
                  + cluster
                  + " in ZooKeeper at "
                  + zookeeper
                  + "; create it with `vcorfu cluster init`");
          return VcorfuCli.NOT_FOUND;
        }
        throw e;
      }
      ClusterRetention now = RetentionZnode.read(store.client(), cluster);
      if (clear || flags.given()) {
        now = clear ? ClusterRetention.NONE : flags.over(now);
        RetentionZnode.write(store.client(), cluster, now);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "cluster "
              + cluster
              + ": "
              + (now.isSet() ? now.describe() : "no retention set (runtimes keep their own)"));
      out.flush();
      return VcorfuCli.OK;
    }
  }
}
