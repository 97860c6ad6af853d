package io.vcorfu.server.cli;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.cluster.NodeCalls;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code vcorfu cluster add-node}, {@code remove-node} and {@code replace-node}: the membership
 * changes a person asks for.
 */
final class ClusterHealCommands {
  private ClusterHealCommands() {}

  /** The options and the flow every membership command shares. */
  abstract static class MembershipCommand implements Callable<Integer> {
    @Option(
        names = "--endpoint",
        defaultValue = "${env:VCORFU_ENDPOINT:-127.0.0.1:9000}",
        description =
            "Nodes of the cluster to ask, host:port[,host:port...]; the first one that answers"
                + " runs the change (default $VCORFU_ENDPOINT, else 127.0.0.1:9000).")
    String endpoint;

    @Option(
        names = "--timeout-ms",
        defaultValue = "30000",
        description =
            "How long to wait for the change, and then for the rebuild or drain the command"
                + " waits for (default ${DEFAULT-VALUE}); the rebuild or drain goes on after it.")
    long timeoutMs;

    @Option(
        names = "--output",
        defaultValue = "text",
        paramLabel = "FORMAT",
        description =
            "text, or json: one object with the change's epoch and the layout it committed"
                + " (default ${DEFAULT-VALUE}).")
    OutputFormat output;

    @Spec CommandSpec spec;

    /** True when the command should wait until {@link #member()} is a full member. */
    boolean await() {
      return false;
    }

    /** The node whose promotion the command waits for: {@link #subject()} unless it says else. */
    Endpoint member() {
      return subject();
    }

    /** A node that must also have left the layout before the wait is over (a drain), or null. */
    Endpoint leaving() {
      return null;
    }

    abstract String name();

    /** What a change committed: its epoch, the layout, and a line for people. */
    record Change(long epoch, String layoutJson, String line) {}

    /** Runs the command's changes through {@code calls}. */
    abstract Change change(NodeCalls calls, List<Endpoint> asked) throws Exception;

    /** The node the command is about (parsed, so a malformed one is a usage error). */
    abstract Endpoint subject();

    @Override
    public Integer call() throws Exception {
      List<Endpoint> asked;
      try {
        asked = ClusterCommands.endpoints(endpoint);
        subject();
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("vcorfu cluster " + name() + ": " + e.getMessage());
        return 2;
      }
      try (NettyTransport transport = new NettyTransport();
          RpcClient rpc =
              transport.newClient(
                  ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(timeoutMs)))) {
        NodeCalls calls = new NodeCalls(rpc);
        PrintWriter out = spec.commandLine().getOut();
        Change done;
        try {
          done = change(calls, asked);
        } catch (ExecutionException e) {
          spec.commandLine()
              .getErr()
              .println("vcorfu cluster " + name() + ": " + VcorfuCli.describe(e.getCause()));
          return 1;
        }
        if (output == OutputFormat.json) {
          var m = new com.fasterxml.jackson.databind.ObjectMapper();
          var root = m.createObjectNode();
          root.put("command", name());
          root.put("node", subject().toString());
          root.put("epoch", done.epoch());
          root.set("layout", m.readTree(done.layoutJson()));
          out.println(m.writeValueAsString(root));
        } else {
          out.println(done.line());
        }
        out.flush();
        if (await()) {
          return awaitMember(calls, asked, out, done.epoch());
        }
      }
      return 0;
    }

    /**
     * For a drain onto the other nodes: prints, every second it changes, which node takes {@code
     * old}'s places and how its copy goes, and how many places {@code old} still holds, until
     * {@code old} has left the layout or time is up.
     */
    private int awaitDrained(
        NodeCalls calls,
        List<Endpoint> asked,
        PrintWriter out,
        long since,
        Endpoint old,
        long deadline)
        throws InterruptedException {
      String last = "";
      while (System.nanoTime() - deadline < 0) {
        try {
          Layout layout = ClusterStatusCommand.newestLayout(calls, asked);
          if (layout.epoch() >= since && layout.removed().contains(old)) {
            out.println(
                old
                    + " has left the cluster (epoch "
                    + layout.epoch()
                    + "); the other nodes hold its places");
            out.flush();
            return 0;
          }
          long places = layout.places(old);
          StringBuilder now = new StringBuilder(old + " holds " + places + " places");
          for (var e : layout.replacing().entrySet()) {
            if (e.getValue().equals(old)) {
              NodeState st = ClusterStatusCommand.states(calls, layout).get(e.getKey());
              now.append("; ")
                  .append(e.getKey())
                  .append(" takes some: ")
                  .append(st == null ? "" : st.state() + " " + st.detail());
            }
          }
          if (!now.toString().equals(last)) {
            out.println(now);
            out.flush();
            last = now.toString();
          }
        } catch (RuntimeException e) {
          out.println("waiting: " + VcorfuCli.describe(e));
          out.flush();
        }
        Thread.sleep(1000);
      }
      spec.commandLine()
          .getErr()
          .println(
              "vcorfu cluster "
                  + name()
                  + ": "
                  + old
                  + " has not left after "
                  + timeoutMs
                  + " ms; the drain goes on");
      return 1;
    }

    /**
     * Prints the joining node's state every second until it is a full member (and the node it
     * replaces has left) or time is up; fails at once when a drain stopped (its replacement was
     * removed, so the old node stays). Layouts older than {@code since} are not judged.
     */
    private int awaitMember(NodeCalls calls, List<Endpoint> asked, PrintWriter out, long since)
        throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      Endpoint node = member();
      Endpoint old = leaving();
      if (node == null) {
        return awaitDrained(calls, asked, out, since, old, deadline);
      }
      String last = "";
      while (System.nanoTime() - deadline < 0) {
        try {
          Layout layout = ClusterStatusCommand.newestLayout(calls, asked);
          NodeState st = ClusterStatusCommand.states(calls, layout).get(node);
          boolean member = layout.allServers().contains(node) && !layout.isRebuilding(node);
          boolean gone = old == null || !layout.allServers().contains(old);
          if (layout.epoch() >= since && member && gone) {
            out.println(
                node
                    + " is a full member (epoch "
                    + layout.epoch()
                    + ")"
                    + (old == null ? "" : "; " + old + " has left the cluster"));
            out.flush();
            return 0;
          }
          if (layout.epoch() >= since && !gone && !old.equals(layout.replacing().get(node))) {
            spec.commandLine()
                .getErr()
                .println(
                    "vcorfu cluster "
                        + name()
                        + ": the drain of "
                        + old
                        + " stopped at epoch "
                        + layout.epoch()
                        + " ("
                        + node
                        + (layout.allServers().contains(node)
                            ? " is no longer its replacement"
                            : " was removed")
                        + "); "
                        + old
                        + " stays in the cluster");
            return 1;
          }
          String now = st == null ? "not in the layout yet" : st.state() + " " + st.detail();
          if (!now.equals(last)) {
            out.println(node + " " + now);
            out.flush();
            last = now;
          }
        } catch (RuntimeException e) {
          out.println("waiting: " + VcorfuCli.describe(e));
          out.flush();
        }
        Thread.sleep(1000);
      }
      spec.commandLine()
          .getErr()
          .println(
              "vcorfu cluster "
                  + name()
                  + ": "
                  + node
                  + " is not a full member after "
                  + timeoutMs
                  + " ms ("
                  + last
                  + (old == null ? "" : "; the drain of " + old + " goes on in the cluster")
                  + ")");
      return 1;
    }

    /**
     * {@code request} sent to the nodes of {@code order} in turn until one answers (a node that
     * answers, even with a refusal, speaks for the cluster; only unreachable ones are skipped).
     */
    <T> T firstAnswer(List<Endpoint> order, Function<Endpoint, CompletableFuture<T>> request)
        throws Exception {
      ExecutionException last = null;
      for (Endpoint via : order) {
        try {
          return request.apply(via).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          last = e;
          if (!(e.getCause() instanceof TransportException)) {
            break;
          }
        }
      }
      throw last;
    }
  }

  /** A command that brings a node in, and can wait until it is a full member. */
  abstract static class JoiningCommand extends MembershipCommand {
    @Option(
        names = "--wait",
        description =
            "Wait until the new node is a full member (rebuilt and promoted), printing the"
                + " rebuild's progress every second.")
    boolean await;

    @Override
    boolean await() {
      return await;
    }
  }

  /** {@code vcorfu cluster remove-node}. */
  @Command(
      name = "remove-node",
      mixinStandardHelpOptions = true,
      description =
          "Take a node out of the cluster (planned). When the cluster has a spare that answers,"
              + " the node is drained first: the spare joins every chain of the node as a"
              + " rebuilding replica while the node keeps serving, copies what they hold, and its"
              + " promotion takes the node out, so no chain serves with fewer replicas meanwhile;"
              + " the command waits for that (see --no-wait). Without a spare the node is removed"
              + " at once: every write it admitted finishes, then a new layout without it is"
              + " committed (the sequencer moves if it was the sequencer), and its chains are short"
              + " of a replica until a node is added; that is refused when the node holds the only"
              + " copy of some chain. Clients carry on through either. The node keeps running,"
              + " serving nothing, until it is stopped; it is never brought back by itself"
              + " (add-node brings it back).")
  static final class RemoveNode extends MembershipCommand {
    @Parameters(
        index = "0",
        paramLabel = "H:P",
        description = "The node to remove, as the layout names it.")
    String node;

    @Option(
        names = "--no-wait",
        description =
            "When the node is drained onto a spare, return once the drain has started instead of"
                + " waiting until the node has left.")
    boolean noWait;

    /** The spare the node is drained onto, once the change says so; null for a removal at once. */
    private Endpoint drainedOnto;

    /** True when the node is drained onto the other nodes (no spare answered). */
    private boolean ontoMembers;

    @Override
    String name() {
      return "remove-node";
    }

    @Override
    Endpoint subject() {
      return Endpoint.parse(node);
    }

    @Override
    boolean await() {
      return (drainedOnto != null || ontoMembers) && !noWait;
    }

    @Override
    Endpoint member() {
      return drainedOnto;
    }

    @Override
    Endpoint leaving() {
      return subject();
    }

    @Override
    Change change(NodeCalls calls, List<Endpoint> asked) throws Exception {
      Endpoint leaving = subject();
      var r = firstAnswer(othersFirst(asked, leaving), via -> calls.removeNode(via, leaving));
      Layout next = Layout.fromJson(r.getLayoutJson());
      if (next.draining().contains(leaving)) {
        ontoMembers = true;
        long places = next.places(leaving);
        return new Change(
            r.getEpoch(),
            r.getLayoutJson(),
            "draining "
                + leaving
                + " onto the other nodes (epoch "
                + r.getEpoch()
                + "): they take its "
                + places
                + " places in the chains, one node at a time, each as a rebuilding replica; "
                + leaving
                + " serves until it holds none, then leaves");
      }
      for (var e : next.replacing().entrySet()) {
        if (e.getValue().equals(leaving)) {
          drainedOnto = e.getKey();
          return new Change(
              r.getEpoch(),
              r.getLayoutJson(),
              "draining "
                  + leaving
                  + " onto the spare "
                  + drainedOnto
                  + " (epoch "
                  + r.getEpoch()
                  + "): "
                  + drainedOnto
                  + " joins its "
                  + chainsOf(next, drainedOnto)
                  + " chains as a rebuilding replica; "
                  + leaving
                  + " serves until "
                  + drainedOnto
                  + " is promoted, then leaves");
        }
      }
      return new Change(
          r.getEpoch(),
          r.getLayoutJson(),
          "removed "
              + leaving
              + ": epoch "
              + r.getEpoch()
              + ", sequencer "
              + next.sequencer()
              + ", "
              + next.allServers().size()
              + " nodes left"
              + shortChains(next));
    }

    /** What a removal left short of R, and what restores it; empty when nothing is short. */
    private static String shortChains(Layout next) {
      List<String> lacking = io.vcorfu.layout.LayoutChanges.underReplicated(next);
      if (lacking.isEmpty()) {
        return "";
      }
      return "; "
          + lacking.size()
          + " chains lack a replica ("
          + String.join(", ", lacking)
          + ")"
          + (next.spares().isEmpty()
              ? " until a node is added (vcorfu cluster add-node)"
              : "; spare " + next.spares().get(0) + " restores them");
    }
  }

  /** {@code asked}, with {@code leaving} moved last: asked only when no other node answers. */
  static List<Endpoint> othersFirst(List<Endpoint> asked, Endpoint leaving) {
    List<Endpoint> order = new ArrayList<>(asked);
    if (order.size() > 1 && order.remove(leaving)) {
      order.add(leaving);
    }
    return order;
  }

  /** {@code vcorfu cluster add-node}. */
  @Command(
      name = "add-node",
      mixinStandardHelpOptions = true,
      description =
          "Add a running node (started with the cluster's --zookeeper and --cluster) to the"
              + " cluster as a spare. While a chain lacks a replica, the manager joins the spare to"
              + " it as a rebuilding replica: it takes new writes at once, copies what the chain"
              + " held before from the surviving replicas, and is then promoted to a full member"
              + " (watch it with `vcorfu cluster status` or --wait). A spare waits for the next"
              + " failure otherwise. With --grow the node takes a share of the cluster's replicas"
              + " at once instead: when the cluster would have more nodes than stream chains,"
              + " every stream chain first splits in two (half of its streams move to a new chain"
              + " with the same members); the node joins some stream chains as a rebuilding"
              + " replica, each of which gives up one other member when it is promoted, and the"
              + " log is then striped over every node.")
  static final class AddNode extends JoiningCommand {
    @Parameters(index = "0", paramLabel = "H:P", description = "The node to add.")
    String node;

    @Option(
        names = "--grow",
        description =
            "Grow the cluster: the node takes a share of the stream chains and of the log (one"
                + " node at a time; refused while a replica is rebuilding). While a chain lacks a"
                + " replica the node is added as a spare instead, which restores it.")
    boolean grow;

    @Override
    String name() {
      return "add-node";
    }

    @Override
    Endpoint subject() {
      return Endpoint.parse(node);
    }

    @Override
    Change change(NodeCalls calls, List<Endpoint> asked) throws Exception {
      var r = firstAnswer(asked, via -> calls.addNode(via, subject(), grow));
      Layout next = Layout.fromJson(r.getLayoutJson());
      if (next.allServers().contains(subject())) {
        long chains =
            next.currentSegment().stream().stream().filter(c -> c.contains(subject())).count();
        String how =
            next.isRebuilding(subject())
                ? "it joins "
                    + chains
                    + " of the "
                    + next.currentSegment().stream().size()
                    + " stream chains as a rebuilding replica and takes log chains once promoted"
                : "it serves "
                    + next.currentSegment().log().stream()
                        .filter(c -> c.contains(subject()))
                        .count()
                    + " log chains of the new segment at once";
        return new Change(
            r.getEpoch(),
            r.getLayoutJson(),
            "added " + node + " to grow the cluster (epoch " + r.getEpoch() + "); " + how);
      }
      String line =
          "added "
              + node
              + " as a spare (epoch "
              + r.getEpoch()
              + (io.vcorfu.layout.LayoutChanges.underReplicated(next).isEmpty()
                  ? "); every chain has its replicas, so it waits for the next failure"
                  : "); it joins the chains that lack a replica");
      return new Change(r.getEpoch(), r.getLayoutJson(), line);
    }
  }

  /** How many chains of the current segment hold {@code node}. */
  static long chainsOf(Layout layout, Endpoint node) {
    var current = layout.currentSegment();
    return current.log().stream().filter(c -> c.contains(node)).count()
        + current.stream().stream().filter(c -> c.contains(node)).count();
  }

  /** {@code vcorfu cluster replace-node}. */
  @Command(
      name = "replace-node",
      mixinStandardHelpOptions = true,
      description =
          "Replace node OLD by the running node NEW (a drain): NEW joins every chain OLD is in as"
              + " a rebuilding replica while OLD keeps serving, copies what those chains hold, and"
              + " its promotion takes OLD out of the cluster in the same layout change, so no chain"
              + " serves with fewer replicas meanwhile. Refused while another replica is"
              + " rebuilding. With --wait, prints the copy's progress until OLD has left.")
  static final class ReplaceNode extends JoiningCommand {
    @Parameters(index = "0", paramLabel = "OLD", description = "The node to take out.")
    String old;

    @Parameters(index = "1", paramLabel = "NEW", description = "The node to put in its place.")
    String replacement;

    @Override
    String name() {
      return "replace-node";
    }

    @Override
    Endpoint subject() {
      Endpoint.parse(old);
      return Endpoint.parse(replacement);
    }

    @Override
    Endpoint leaving() {
      return Endpoint.parse(old);
    }

    @Override
    Change change(NodeCalls calls, List<Endpoint> asked) throws Exception {
      Endpoint leaving = Endpoint.parse(old);
      Endpoint joining = subject();
      var r =
          firstAnswer(othersFirst(asked, leaving), via -> calls.replaceNode(via, leaving, joining));
      Layout next = Layout.fromJson(r.getLayoutJson());
      String line =
          "replacing "
              + leaving
              + " by "
              + joining
              + " (epoch "
              + r.getEpoch()
              + "): "
              + joining
              + " joins its "
              + chainsOf(next, joining)
              + " chains as a rebuilding replica; "
              + leaving
              + " serves until "
              + joining
              + " is promoted, then leaves";
      return new Change(r.getEpoch(), r.getLayoutJson(), line);
    }
  }
}
