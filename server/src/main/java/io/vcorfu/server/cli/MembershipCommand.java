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
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The options and the flow every membership command shares. */
abstract class MembershipCommand implements Callable<Integer> {
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

  @picocli.CommandLine.Mixin TlsFlags tls = new TlsFlags();

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
    try (ShellSession.Held<NettyTransport> transport = ShellSession.transport(spec, tls.options());
        RpcClient rpc =
            transport
                .get()
                .newClient(
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
   * old}'s places and how its copy goes, and how many places {@code old} still holds, until {@code
   * old} has left the layout or time is up.
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
