package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.LayoutVersionMismatchException;
import io.vcorfu.layout.Segment;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.server.cluster.NodeCalls;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
      ClusterCommands.Status.class,
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
          "Write a new cluster's first layout to ZooKeeper and wait until its sequencer serves."
              + " Refuses if the cluster exists. The first node is the sequencer; every node heads"
              + " one log chain of R replicas, and stream chain i is the log chain of node i mod"
              + " N.")
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
      try (ZkLayoutStore store =
          ZkLayoutStore.connect(zookeeper, cluster, Duration.ofSeconds(10))) {
        try {
          store.compareAndSet(LayoutStore.NO_VERSION, first).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof LayoutVersionMismatchException) {
            Versioned<Layout> existing = store.get().join();
            spec.commandLine()
                .getErr()
                .println(
                    "vcorfu: cluster "
                        + cluster
                        + " exists already (epoch "
                        + existing.value().epoch()
                        + ", sequencer "
                        + existing.value().sequencer()
                        + "); nothing was changed");
            return 1;
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
      PrintWriter out = spec.commandLine().getOut();
      if (output.json()) {
        awaitSequencer(members, Duration.ofMillis(timeoutMs));
        com.fasterxml.jackson.databind.node.ObjectNode o = Output.JSON.createObjectNode();
        o.put("cluster", cluster);
        o.put("epoch", first.epoch());
        o.put("sequencer", first.sequencer().toString());
        com.fasterxml.jackson.databind.node.ArrayNode list = o.putArray("nodes");
        members.forEach(m -> list.add(m.toString()));
        o.put("replication", first.replication());
        o.put("streamChains", first.currentSegment().stream().size());
        o.put("sequencerServing", true);
        out.println(Output.JSON.writeValueAsString(o));
        return 0;
      }
      out.println(
          "cluster "
              + cluster
              + " created: epoch "
              + first.epoch()
              + ", sequencer "
              + first.sequencer()
              + ", "
              + members.size()
              + " nodes, replication "
              + first.replication()
              + ", "
              + first.currentSegment().stream().size()
              + " stream chains");
      out.flush();
      awaitSequencer(members, Duration.ofMillis(timeoutMs));
      out.println("sequencer serving");
      return 0;
    }

    /** Waits until a token-free request to the sequencer (a tail query) is answered. */
    private static void awaitSequencer(List<Endpoint> members, Duration timeout) throws Exception {
      long deadline = System.nanoTime() + timeout.toNanos();
      StreamLogOptions options =
          StreamLogOptions.defaults()
              .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)));
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

  /** {@code vcorfu cluster status}. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description =
          "Show a cluster's epoch, sequencer, chains (a chain with fewer serving replicas than"
              + " the replication factor is marked under-replicated) and the state of every node"
              + " (serving, rebuilding with its progress, spare, not-serving, untrusted,"
              + " unresponsive, removed).")
  static final class Status implements Callable<Integer> {
    @Option(
        names = "--endpoint",
        defaultValue = "${env:VCORFU_ENDPOINT:-127.0.0.1:9000}",
        description =
            "Nodes to ask, host:port[,host:port...]; any reachable one will do (default"
                + " $VCORFU_ENDPOINT, else 127.0.0.1:9000).")
    String endpoint;

    @Option(
        names = "--output",
        defaultValue = "text",
        paramLabel = "FORMAT",
        description = "text or json (default ${DEFAULT-VALUE}).")
    OutputFormat output;

    @Option(
        names = "--watch-ms",
        defaultValue = "0",
        description =
            "Print the status again every this many milliseconds until stopped (0, the default:"
                + " once). With --output json each status is one line; text ones are separated by"
                + " an empty line. A round no node answers prints its error and the watch goes on.")
    long watchMs;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      if (watchMs < 0) {
        spec.commandLine().getErr().println("vcorfu cluster status: --watch-ms must be 0 or more");
        return 2;
      }
      List<Endpoint> asked;
      try {
        asked = endpoints(endpoint);
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("vcorfu cluster status: " + e.getMessage());
        return 2;
      }
      try (NettyTransport transport = new NettyTransport();
          RpcClient rpc =
              transport.newClient(
                  ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)))) {
        NodeCalls calls = new NodeCalls(rpc);
        PrintWriter out = spec.commandLine().getOut();
        if (watchMs == 0) {
          print(out, calls, asked);
          return 0;
        }
        while (!Thread.currentThread().isInterrupted()) {
          try {
            print(out, calls, asked);
            if (output == OutputFormat.text) {
              out.println();
              out.flush();
            }
          } catch (RuntimeException e) {
            spec.commandLine().getErr().println("vcorfu cluster status: " + VcorfuCli.describe(e));
            spec.commandLine().getErr().flush();
          }
          Thread.sleep(watchMs);
        }
      }
      return 0;
    }

    private void print(PrintWriter out, NodeCalls calls, List<Endpoint> asked) throws Exception {
      Layout layout = newestLayout(calls, asked);
      Map<Endpoint, NodeState> states = states(calls, layout);
      if (output == OutputFormat.json) {
        out.println(watchMs == 0 ? json(layout, states) : compact(json(layout, states)));
      } else {
        text(out, layout, states);
      }
      out.flush();
    }

    private static String compact(String json) throws Exception {
      ObjectMapper m = new ObjectMapper();
      return m.writeValueAsString(m.readTree(json));
    }

    /** Every node of {@code layout}, its spares and its removed nodes, with what a probe says. */
    static Map<Endpoint, NodeState> states(NodeCalls calls, Layout layout) {
      Set<Endpoint> nodes = new LinkedHashSet<>(layout.allServers());
      nodes.addAll(layout.spares());
      nodes.addAll(layout.removed());
      Map<Endpoint, CompletableFuture<PingResponse>> pings = new LinkedHashMap<>();
      for (Endpoint n : nodes) {
        pings.put(n, layout.removed().contains(n) ? null : calls.ping(n));
      }
      Map<Endpoint, NodeState> states = new LinkedHashMap<>();
      for (Map.Entry<Endpoint, CompletableFuture<PingResponse>> e : pings.entrySet()) {
        states.put(e.getKey(), NodeState.of(layout, e.getKey(), e.getValue()));
      }
      return states;
    }

    static Layout newestLayout(NodeCalls calls, List<Endpoint> asked) {
      Layout newest = null;
      Throwable last = null;
      List<CompletableFuture<String>> answers = new ArrayList<>();
      for (Endpoint e : asked) {
        answers.add(calls.layoutJson(e));
      }
      for (CompletableFuture<String> f : answers) {
        try {
          Layout l = Layout.fromJson(f.join());
          if (newest == null || l.epoch() > newest.epoch()) {
            newest = l;
          }
        } catch (CompletionException e) {
          last = e.getCause();
        }
      }
      if (newest == null) {
        throw new IllegalStateException("no node of " + asked + " answered with a layout", last);
      }
      return newest;
    }

    private static void text(PrintWriter out, Layout layout, Map<Endpoint, NodeState> states) {
      out.println("cluster " + layout.clusterId());
      out.println("epoch " + layout.epoch());
      out.println("sequencer " + layout.sequencer());
      if (layout.replication() > 0) {
        out.println("replication " + layout.replication());
        out.println(streamChains(layout));
      }
      for (Segment s : layout.segments()) {
        String range = "[" + s.start() + ", " + (s.isOpen() ? "open" : s.end()) + ")";
        for (int i = 0; i < s.log().size(); i++) {
          out.println(
              "segment "
                  + range
                  + " log chain "
                  + i
                  + " "
                  + chain(layout, s, true, i)
                  + health(layout, s, true, i, states));
        }
        for (int i = 0; i < s.stream().size(); i++) {
          long since = s == layout.currentSegment() ? layout.streamChainSince(i) : 0;
          out.println(
              "segment "
                  + range
                  + " stream chain "
                  + i
                  + " "
                  + chain(layout, s, false, i)
                  + (since > 0 ? " (taken up at epoch " + since + ")" : "")
                  + health(layout, s, false, i, states));
        }
      }
      states.forEach(
          (node, st) ->
              out.println(
                  "node "
                      + node
                      + " "
                      + st.state()
                      + (st.detail().isEmpty() ? "" : " (" + st.detail() + ")")));
    }

    /**
     * How many replicas of chain {@code index} of {@code s} answer as serving: their node serves,
     * or rebuilds other chains only.
     */
    private static int serving(
        Layout layout, Segment s, boolean log, int index, Map<Endpoint, NodeState> states) {
      int n = 0;
      for (Endpoint e : (log ? s.log() : s.stream()).get(index)) {
        NodeState st = states.get(e);
        boolean serves =
            st != null
                && (st.state().equals("serving")
                    || (st.state().equals("rebuilding") && !layout.rebuildsIn(e, s, log, index)));
        if (serves) {
          n++;
        }
      }
      return n;
    }

    /**
     * {@code " under-replicated (2 of 3 serving)"} when fewer of {@code chain}'s replicas serve
     * than the cluster's replication factor; empty otherwise (or when the layout sets none).
     */
    private static String health(
        Layout layout, Segment s, boolean log, int index, Map<Endpoint, NodeState> states) {
      List<Endpoint> chain = (log ? s.log() : s.stream()).get(index);
      int serving = serving(layout, s, log, index, states);
      if (layout.replication() == 0 || serving >= layout.replication()) {
        return "";
      }
      if (chain.isEmpty()) {
        return "(no replica: its streams are read from the log and their entries decided by it,"
            + " until a node takes the chain up)";
      }
      if (log && io.vcorfu.layout.LostLogChains.fromStreams(layout, s, index)) {
        return " (every replica was lost: rebuilding it from the stream replicas; its addresses are"
            + " read once that is done, those no stream replica holds as lost)";
      }
      return " under-replicated (" + serving + " of " + layout.replication() + " serving)";
    }

    private static String chain(List<Endpoint> chain) {
      StringBuilder b = new StringBuilder();
      for (Endpoint e : chain) {
        b.append(b.length() == 0 ? "" : " -> ").append(e);
      }
      return b.toString();
    }

    /** "log chain 1", "stream chain 3": the chains a member rebuilds. */
    static List<String> chainNames(io.vcorfu.layout.JoinedChains joined) {
      List<String> out = new ArrayList<>();
      new java.util.TreeSet<>(joined.log()).forEach(c -> out.add("log chain " + c));
      new java.util.TreeSet<>(joined.stream()).forEach(c -> out.add("stream chain " + c));
      return out;
    }

    private static String chain(Layout layout, Segment s, boolean log, int index) {
      StringBuilder b = new StringBuilder();
      for (Endpoint e : (log ? s.log() : s.stream()).get(index)) {
        b.append(b.length() == 0 ? "" : " -> ")
            .append(e)
            .append(layout.rebuildsIn(e, s, log, index) ? " (rebuilding)" : "");
      }
      return b.toString();
    }

    /**
     * "stream chains P", and where growth split them, from how many root chains and how often: a
     * stream is placed on chain {@code hash mod P}.
     */
    static String streamChains(Layout layout) {
      int p = layout.currentSegment().stream().size();
      int splits = layout.streamSplits();
      if (splits == 0) {
        return "stream chains " + p;
      }
      return "stream chains "
          + p
          + " ("
          + (p >> splits)
          + " split in two "
          + (splits == 1 ? "once" : splits + " times")
          + " as the cluster grew)";
    }

    private static String json(Layout layout, Map<Endpoint, NodeState> states) throws Exception {
      ObjectMapper m = new ObjectMapper();
      ObjectNode root = m.createObjectNode();
      root.put("cluster", layout.clusterId());
      root.put("epoch", layout.epoch());
      root.put("sequencer", layout.sequencer().toString());
      root.put("replication", layout.replication());
      root.put("streamChains", layout.currentSegment().stream().size());
      root.put("streamSplits", layout.streamSplits());
      root.set("layout", m.readTree(layout.toJson()));
      ArrayNode under = root.putArray("underReplicated");
      for (Segment s : layout.segments()) {
        for (String kind : List.of("log", "stream")) {
          List<List<Endpoint>> chains = kind.equals("log") ? s.log() : s.stream();
          for (int i = 0; i < chains.size(); i++) {
            int serving = serving(layout, s, kind.equals("log"), i, states);
            if (layout.replication() > 0 && serving < layout.replication()) {
              ObjectNode c = under.addObject();
              c.put("segmentStart", s.start());
              c.put("kind", kind);
              c.put("chain", i);
              c.put("serving", serving);
              c.put("replication", layout.replication());
            }
          }
        }
      }
      ArrayNode nodes = root.putArray("nodes");
      states.forEach(
          (node, st) -> {
            ObjectNode n = nodes.addObject();
            n.put("endpoint", node.toString());
            n.put("state", st.state());
            if (st.ping() != null) {
              n.put("epoch", st.ping().getEpoch());
              n.put("sealedEpoch", st.ping().getSealedEpoch());
              n.put("manager", st.ping().getManaging());
              if (st.ping().getTakeover().getSinceEpoch() > 0) {
                var t = st.ping().getTakeover();
                ObjectNode to = n.putObject("takeover");
                to.put("sinceEpoch", t.getSinceEpoch());
                to.put("entriesCopied", t.getEntriesCopied());
                to.put("bytesCopied", t.getBytesCopied());
                to.put("bytesPerSecond", t.getBytesPerSecond());
              }
              if (st.state().equals("rebuilding")) {
                var r = st.ping().getRebuild();
                ObjectNode rb = n.putObject("rebuild");
                rb.put("sinceEpoch", r.getSinceEpoch());
                var joined = layout.rebuildingChains().get(node);
                if (joined != null) {
                  ArrayNode only = rb.putArray("chains");
                  chainNames(joined).forEach(only::add);
                }
                rb.put("done", r.getDone());
                rb.put("entriesCopied", r.getEntriesCopied());
                rb.put("bytesCopied", r.getBytesCopied());
                rb.put("entriesHeld", r.getEntriesHeld());
                rb.put("entriesLeft", r.getEntriesLeft());
                rb.put("bytesPerSecond", r.getBytesPerSecond());
                rb.put("secondsLeft", r.getSecondsLeft());
                rb.put("rateLimitBytesPerSecond", r.getRateLimitBytesPerSecond());
                rb.put("foregroundP99Micros", r.getForegroundP99Micros());
              }
            }
            if (!st.detail().isEmpty()) {
              n.put("detail", st.detail());
            }
          });
      return m.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }
  }

  /** What one node's probe said. */
  record NodeState(String state, String detail, PingResponse ping) {
    static NodeState of(Layout layout, Endpoint node, CompletableFuture<PingResponse> ping) {
      if (ping == null) {
        return new NodeState(
            "removed", layout.retired().contains(node) ? "left on request" : "", null);
      }
      try {
        PingResponse p = ping.join();
        if (layout.spares().contains(node)) {
          return new NodeState("spare", "answering", p);
        }
        Endpoint replaces = layout.replacing().get(node);
        if (layout.isRebuilding(node) && p.getServing()) {
          var joined = layout.rebuildingChains().get(node);
          return new NodeState(
              "rebuilding",
              (replaces == null ? "" : "replacing " + replaces + ": ")
                  + (joined == null
                      ? ""
                      : "serving its other chains, rebuilding "
                          + String.join(", ", Status.chainNames(joined))
                          + ": ")
                  + progress(p.getRebuild()),
              p);
        }
        if (p.getServing() && p.getTakeover().getSinceEpoch() > 0) {
          var t = p.getTakeover();
          return new NodeState(
              "serving",
              "epoch "
                  + p.getEpoch()
                  + "; copying the streams of the chains it took up at epoch "
                  + t.getSinceEpoch()
                  + " from the log, their reads served from the log meanwhile: "
                  + t.getEntriesCopied()
                  + " slots copied ("
                  + String.format(java.util.Locale.ROOT, "%.1f", t.getBytesCopied() / 1048576.0)
                  + " MiB), "
                  + String.format(java.util.Locale.ROOT, "%.1f", t.getBytesPerSecond() / 1048576.0)
                  + " MiB/s",
              p);
        }
        if (p.getServing() && layout.draining().contains(node)) {
          long places = layout.places(node);
          return new NodeState(
              "serving",
              "epoch "
                  + p.getEpoch()
                  + "; leaving on request: the other nodes take its "
                  + places
                  + " remaining places, one node at a time",
              p);
        }
        if (p.getServing()) {
          for (var e : layout.replacing().entrySet()) {
            if (e.getValue().equals(node)) {
              return new NodeState(
                  "serving",
                  "epoch " + p.getEpoch() + "; leaving once " + e.getKey() + " is promoted",
                  p);
            }
          }
          return new NodeState("serving", "epoch " + p.getEpoch(), p);
        }
        return new NodeState(
            p.getUntrusted() ? "untrusted" : "not-serving", p.getNotServingReason(), p);
      } catch (CompletionException e) {
        return new NodeState("unresponsive", VcorfuCli.describe(e.getCause()), null);
      }
    }

    /** A rebuild's progress for people: slots and bytes copied, rate, time left. */
    static String progress(io.vcorfu.protocol.proto.RebuildProgress r) {
      if (r.getSinceEpoch() == 0) {
        return "copy not started yet";
      }
      String copied =
          r.getEntriesCopied()
              + " slots copied ("
              + String.format(java.util.Locale.ROOT, "%.1f", r.getBytesCopied() / 1048576.0)
              + " MiB), "
              + r.getEntriesHeld()
              + " held already";
      if (r.getDone()) {
        return copied + "; copy done at epoch " + r.getEpoch() + ", awaiting promotion";
      }
      return copied
          + ", "
          + r.getEntriesLeft()
          + " left, "
          + String.format(java.util.Locale.ROOT, "%.1f", r.getBytesPerSecond() / 1048576.0)
          + " MiB/s"
          + (r.getRateLimitBytesPerSecond() > 0
              ? String.format(
                  java.util.Locale.ROOT,
                  " (limit %.1f MiB/s, foreground p99 %.1f ms)",
                  r.getRateLimitBytesPerSecond() / 1048576.0,
                  r.getForegroundP99Micros() / 1000.0)
              : "")
          + (r.getSecondsLeft() >= 0
              ? String.format(java.util.Locale.ROOT, ", about %.0f s left", r.getSecondsLeft())
              : "")
          + (r.getLastError().isEmpty() ? "" : "; last attempt failed: " + r.getLastError());
    }
  }
}
