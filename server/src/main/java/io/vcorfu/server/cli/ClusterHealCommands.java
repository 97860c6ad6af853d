package io.vcorfu.server.cli;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.server.cluster.NodeCalls;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vcorfu cluster add-node}, {@code remove-node} and {@code replace-node}: the membership
 * changes a person asks for.
 */
final class ClusterHealCommands {
  private ClusterHealCommands() {}

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
      drainedOnto = null; // what an earlier run of this command (a line of vcorfu shell) found
      ontoMembers = false;
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
