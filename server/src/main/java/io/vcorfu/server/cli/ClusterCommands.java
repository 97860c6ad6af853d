package io.vcorfu.server.cli;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.LayoutVersionMismatchException;
import io.vcorfu.layout.ZkAuth;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vcorfu cluster}: create a cluster's first layout, show a cluster's state, remove a node.
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description =
        "Create a cluster, show its state, compact its nodes' storage, set the history it keeps,"
            + " and add, remove and replace its nodes.",
    subcommands = {
      ClusterCommands.Init.class,
      ClusterStatusCommand.class,
      CompactCommand.class,
      RetentionCommand.class,
      ClusterHealCommands.RemoveNode.class,
      ClusterHealCommands.AddNode.class,
      ClusterHealCommands.ReplaceNode.class
    })
final class ClusterCommands {
  private ClusterCommands() {}

  static List<Endpoint> endpoints(String list) {
    List<Endpoint> out = new ArrayList<>();
    for (String part : list.split(",")) {
      String p = part.trim();
      if (!p.isEmpty()) {
        out.add(Endpoint.parse(p));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no endpoint given in '" + list + "'");
    }
    return out;
  }

  /** {@code vcorfu cluster init}. */
  @Command(
      name = "init",
      mixinStandardHelpOptions = true,
      description =
          "Write a new cluster's first layout to ZooKeeper and wait until its sequencer serves. Run"
              + " again with the cluster's nodes it changes nothing and exits 0; with a node the"
              + " cluster never had it is refused. The first node is the sequencer; every node"
              + " heads one log chain of R replicas, and stream chain i is the log chain of node i"
              + " mod N.")
  static final class Init implements Callable<Integer> {
    @picocli.CommandLine.Mixin ClusterInZooKeeper where = new ClusterInZooKeeper();

    @Option(
        names = "--nodes",
        required = true,
        description =
            "The cluster's nodes, host:port[,host:port...], each running `vcorfu server`.")
    String nodes;

    @Option(
        names = "--replication",
        description = "Replicas per chain (default: the number of nodes, at most 3).")
    Integer replication;

    @Option(
        names = "--stream-chains",
        description =
            "Stream chains (default: the number of nodes). Streams stay on their chain for the"
                + " cluster's life; nodes added later with `cluster add-node --grow` take places"
                + " in existing chains, so up to stream-chains x R nodes hold stream replicas:"
                + " give a cluster that will grow more chains than nodes.")
    Integer streamChains;

    @Option(
        names = "--stream-nodes",
        description =
            "Nodes that hold the stream replicas, host:port[,host:port...], apart from --nodes,"
                + " which then hold the log replicas and the sequencer (the paper's layout: a"
                + " stream chain that loses every replica leaves the log intact, and its streams"
                + " are served from the log meanwhile). Default: --nodes hold both. --stream-chains"
                + " defaults to the number of stream nodes.")
    String streamNodes;

    @Option(
        names = "--timeout-ms",
        defaultValue = "60000",
        description = "How long to wait for the sequencer to serve (default ${DEFAULT-VALUE}).")
    long timeoutMs;

    @picocli.CommandLine.Mixin RetentionFlags retention = new RetentionFlags();

    @picocli.CommandLine.Mixin TlsFlags tls = new TlsFlags();

    @picocli.CommandLine.Mixin Output output = new Output();

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      String zookeeper = where.zookeeper;
      String cluster = where.cluster;
      List<Endpoint> members;
      Layout first;
      try {
        List<Endpoint> logNodes = endpoints(nodes);
        List<Endpoint> streamHolders = streamNodes == null ? List.of() : endpoints(streamNodes);
        members = new ArrayList<>(logNodes);
        members.addAll(streamHolders);
        int within =
            streamHolders.isEmpty()
                ? logNodes.size()
                : Math.min(logNodes.size(), streamHolders.size());
        int r = replication != null ? replication : Math.min(3, within);
        first =
            streamHolders.isEmpty()
                ? LayoutChanges.initial(
                    cluster, logNodes, r, streamChains != null ? streamChains : logNodes.size())
                : LayoutChanges.initial(
                    cluster,
                    logNodes,
                    streamHolders,
                    r,
                    streamChains != null ? streamChains : streamHolders.size());
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("vcorfu cluster init: " + e.getMessage());
        return 2;
      }
      ZkAuth auth;
      io.vcorfu.layout.ZkTls zkTls;
      try {
        auth = where.auth();
        zkTls = where.tls();
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("vcorfu cluster init: " + e.getMessage());
        return 2;
      }
      try (ZkLayoutStore store =
          ZkLayoutStore.connect(zookeeper, cluster, Duration.ofSeconds(10), auth, zkTls)) {
        try {
          store.compareAndSet(LayoutStore.NO_VERSION, first).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof LayoutVersionMismatchException) {
            Layout existing = store.get().join().value();
            List<Endpoint> unknown = new ArrayList<>();
            for (Endpoint m : members) {
              if (!knows(existing, m)) {
                unknown.add(m);
              }
            }
            if (!unknown.isEmpty()) {
              spec.commandLine()
                  .getErr()
                  .println(
                      "vcorfu: cluster "
                          + cluster
                          + " exists already with other nodes (epoch "
                          + existing.epoch()
                          + ", nodes "
                          + joined(existing.allServers())
                          + ", never "
                          + joined(unknown)
                          + "); nothing was changed: name its nodes, or choose another --cluster");
              return 1;
            }
            // Asked for something the cluster does not have: say so rather than leave the caller
            // believing it was applied.
            List<String> differs = new ArrayList<>();
            if (replication != null && replication != existing.replication()) {
              differs.add("replication " + existing.replication());
            }
            if (retention.given()) {
              io.vcorfu.client.ClusterRetention now =
                  io.vcorfu.server.cluster.RetentionZnode.read(store.client(), cluster);
              if (!retention.over(now).equals(now)) {
                differs.add(now.isSet() ? now.describe() : "no retention set");
              }
            }
            if (!differs.isEmpty()) {
              spec.commandLine()
                  .getErr()
                  .println(
                      "vcorfu: cluster "
                          + cluster
                          + " exists already with these nodes but keeps "
                          + String.join(", ", differs)
                          + "; nothing was changed (change the history it keeps with `vcorfu"
                          + " cluster retention`)");
              return 1;
            }
            // The same cluster initialised again (a restarted deployment script, a second
            // `docker compose up`): nothing to write; answer as for the first init once its
            // sequencer serves.
            return answer(cluster, existing, false, new ArrayList<>(existing.allServers()));
          }
          throw e;
        }
        // Written once the cluster is this command's (an existing one's is left alone); the
        // nodes' sequencer announces it within a moment of the change.
        if (retention.given()) {
          io.vcorfu.server.cluster.RetentionZnode.write(
              store.client(), cluster, retention.over(io.vcorfu.client.ClusterRetention.NONE));
        }
      }
      return answer(cluster, first, true, members);
    }

    /**
     * Prints what init did ({@code created}: wrote {@code layout} as the cluster's first; else
     * found the cluster already holding these nodes), waits until the sequencer serves, and says
     * so; exits 0.
     */
    private int answer(String cluster, Layout layout, boolean created, List<Endpoint> members)
        throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      if (output.json()) {
        awaitSequencer(members, Duration.ofMillis(timeoutMs), tls.options());
        com.fasterxml.jackson.databind.node.ObjectNode o = Output.mapper().createObjectNode();
        o.put("cluster", cluster);
        o.put("created", created);
        o.put("epoch", layout.epoch());
        o.put("sequencer", layout.sequencer().toString());
        com.fasterxml.jackson.databind.node.ArrayNode list = o.putArray("nodes");
        members.forEach(m -> list.add(m.toString()));
        o.put("replication", layout.replication());
        o.put("streamChains", layout.currentSegment().stream().size());
        o.put("sequencerServing", true);
        out.println(Output.mapper().writeValueAsString(o));
        return 0;
      }
      out.println(
          "cluster "
              + cluster
              + (created ? " created: epoch " : " exists already with these nodes: epoch ")
              + layout.epoch()
              + ", sequencer "
              + layout.sequencer()
              + ", "
              + members.size()
              + " nodes, replication "
              + layout.replication()
              + ", "
              + layout.currentSegment().stream().size()
              + " stream chains"
              + (created ? "" : "; nothing was changed"));
      out.flush();
      awaitSequencer(members, Duration.ofMillis(timeoutMs), tls.options());
      out.println("sequencer serving");
      return 0;
    }

    /** True if {@code node} is or was a node of {@code layout}'s cluster. */
    private static boolean knows(Layout layout, Endpoint node) {
      return layout.allServers().contains(node)
          || layout.removed().contains(node)
          || layout.spares().contains(node)
          || layout.retired().contains(node)
          || layout.draining().contains(node);
    }

    private static String joined(java.util.Collection<Endpoint> nodes) {
      return String.join(",", nodes.stream().map(Endpoint::toString).toList());
    }

    /** Waits until a token-free request to the sequencer (a tail query) is answered. */
    private static void awaitSequencer(
        List<Endpoint> members, Duration timeout, io.vcorfu.protocol.TlsOptions tls)
        throws Exception {
      long deadline = System.nanoTime() + timeout.toNanos();
      StreamLogOptions options =
          StreamLogOptions.defaults()
              .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)))
              .withTls(tls);
      Throwable last = null;
      while (System.nanoTime() - deadline < 0) {
        for (Endpoint e : members) {
          try (ClusterStreamLog log = ClusterStreamLog.connect(e, options)) {
            log.tails(List.of()).get(2, TimeUnit.SECONDS);
            return;
          } catch (Exception error) {
            last = error;
          }
        }
        Thread.sleep(200);
      }
      throw new IllegalStateException(
          "the cluster's sequencer did not serve within " + timeout.toMillis() + " ms", last);
    }
  }
}
