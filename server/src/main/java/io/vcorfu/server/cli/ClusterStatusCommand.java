package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vcorfu cluster status}: what every node of a cluster says of itself, and its chains. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Show a cluster: its epoch and sequencer, a table of its nodes (role, state:"
            + " serving, rebuilding with its progress, spare, not-serving, untrusted,"
            + " unresponsive or removed; epoch, log tail and how far it lags the furthest node's),"
            + " then the chains of its current segment (a chain with fewer serving replicas than"
            + " the replication factor is marked under-replicated).")
final class ClusterStatusCommand implements Callable<Integer> {
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

  @Option(
      names = "--history",
      description =
          "Also list the chains of every earlier segment of the layout (text output; JSON always"
              + " holds the whole layout).")
  boolean history;

  @picocli.CommandLine.Mixin TlsFlags tls = new TlsFlags();

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (watchMs < 0) {
      spec.commandLine().getErr().println("vcorfu cluster status: --watch-ms must be 0 or more");
      return 2;
    }
    List<Endpoint> asked;
    try {
      asked = ClusterCommands.endpoints(endpoint);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("vcorfu cluster status: " + e.getMessage());
      return 2;
    }
    if (ShellSession.pinned(spec) != null) {
      // A node runs it for a caller: the caller's names for the nodes need not resolve here.
      asked = List.of(ShellSession.pinned(spec));
    }
    try (ShellSession.Held<NettyTransport> transport = ShellSession.transport(spec, tls.options());
        RpcClient rpc =
            transport
                .get()
                .newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)))) {
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
    Map<Endpoint, NodeState> states = states(calls, layout, true);
    if (ShellSession.pinned(spec) != null) {
      // Run by a node for a caller (OneShot), which asked only itself: a node that answers a
      // newer epoch has the newer layout.
      List<Endpoint> newer = newerThan(layout, states);
      if (!newer.isEmpty()) {
        layout = newestLayout(calls, newer);
        states = states(calls, layout, true);
      }
    }
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

  /** The nodes whose probe answered an epoch above {@code layout}'s. */
  static List<Endpoint> newerThan(Layout layout, Map<Endpoint, NodeState> states) {
    List<Endpoint> newer = new ArrayList<>();
    for (Map.Entry<Endpoint, NodeState> e : states.entrySet()) {
      PingResponse p = e.getValue().ping();
      if (p != null && p.getEpoch() > layout.epoch()) {
        newer.add(e.getKey());
      }
    }
    return newer;
  }

  /** Every node of {@code layout}, its spares and its removed nodes, with what a probe says. */
  static Map<Endpoint, NodeState> states(NodeCalls calls, Layout layout) {
    return states(calls, layout, false);
  }

  /**
   * {@link #states(NodeCalls, Layout)}, each probe also asking for the node's storage space (its
   * log tail among it) when {@code space}: what the status table shows, not needed by a command
   * waiting on one node's state.
   */
  static Map<Endpoint, NodeState> states(NodeCalls calls, Layout layout, boolean space) {
    Set<Endpoint> nodes = new LinkedHashSet<>(layout.allServers());
    nodes.addAll(layout.spares());
    nodes.addAll(layout.removed());
    Map<Endpoint, CompletableFuture<PingResponse>> pings = new LinkedHashMap<>();
    for (Endpoint n : nodes) {
      pings.put(
          n, layout.removed().contains(n) ? null : space ? calls.pingWithSpace(n) : calls.ping(n));
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

  /**
   * The text status: a line on the cluster, a table of its nodes, then the chains of its current
   * segment (every segment with {@code --history}).
   */
  private void text(PrintWriter out, Layout layout, Map<Endpoint, NodeState> states) {
    out.println(
        "cluster "
            + layout.clusterId()
            + ": epoch "
            + layout.epoch()
            + ", sequencer "
            + layout.sequencer()
            + (layout.replication() > 0
                ? ", replication " + layout.replication() + ", " + streamChains(layout)
                : ""));
    out.println();
    nodeTable(out, layout, states);
    List<Segment> segments = layout.segments();
    List<Segment> shown = history ? segments : List.of(layout.currentSegment());
    for (Segment s : shown) {
      out.println();
      out.println(
          "segment ["
              + s.start()
              + ", "
              + (s.isOpen() ? "open" : s.end())
              + ")"
              + (s == layout.currentSegment() ? " (current)" : ""));
      for (int i = 0; i < s.log().size(); i++) {
        out.println(
            "  log chain "
                + i
                + " "
                + chain(layout, s, true, i)
                + health(layout, s, true, i, states));
      }
      for (int i = 0; i < s.stream().size(); i++) {
        long since = s == layout.currentSegment() ? layout.streamChainSince(i) : 0;
        out.println(
            "  stream chain "
                + i
                + " "
                + chain(layout, s, false, i)
                + (since > 0 ? " (taken up at epoch " + since + ")" : "")
                + health(layout, s, false, i, states));
      }
    }
    if (!history && segments.size() > 1) {
      int earlier = segments.size() - 1;
      out.println(
          earlier
              + (earlier == 1 ? " earlier segment" : " earlier segments")
              + " (--history lists "
              + (earlier == 1 ? "it" : "them")
              + ")");
    }
  }

  /**
   * One row per node: its endpoint, role (sequencer, manager, replica), state, epoch, log tail, how
   * many addresses its log tail is behind the furthest node's, and what else its probe says.
   */
  private static void nodeTable(PrintWriter out, Layout layout, Map<Endpoint, NodeState> states) {
    long furthest = -1;
    for (NodeState st : states.values()) {
      if (st.ping() != null && st.ping().hasSpace()) {
        furthest = Math.max(furthest, st.ping().getSpace().getLogTail());
      }
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"NODE", "ROLE", "STATE", "EPOCH", "LOG TAIL", "LAG", "DETAIL"});
    for (Map.Entry<Endpoint, NodeState> e : states.entrySet()) {
      Endpoint node = e.getKey();
      NodeState st = e.getValue();
      PingResponse p = st.ping();
      List<String> roles = new ArrayList<>();
      if (node.equals(layout.sequencer())) {
        roles.add("sequencer");
      }
      if (p != null && p.getManaging()) {
        roles.add("manager");
      }
      if (roles.isEmpty()) {
        roles.add(layout.allServers().contains(node) ? "replica" : "-");
      }
      boolean tail = p != null && p.hasSpace();
      rows.add(
          new String[] {
            node.toString(),
            String.join(",", roles),
            st.state(),
            p == null ? "-" : Long.toString(p.getEpoch()),
            tail ? Long.toString(p.getSpace().getLogTail()) : "-",
            tail ? Long.toString(furthest - p.getSpace().getLogTail()) : "-",
            withoutEpoch(st.detail(), p)
          });
    }
    int[] widths = new int[rows.get(0).length - 1];
    for (String[] r : rows) {
      for (int c = 0; c < widths.length; c++) {
        widths[c] = Math.max(widths[c], r[c].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder b = new StringBuilder();
      for (int c = 0; c < widths.length; c++) {
        b.append(String.format("%-" + widths[c] + "s  ", r[c]));
      }
      out.println((b + r[widths.length]).stripTrailing());
    }
  }

  /** {@code detail} without the "epoch N" the table shows in its own column. */
  private static String withoutEpoch(String detail, PingResponse p) {
    if (p == null) {
      return detail;
    }
    String epoch = "epoch " + p.getEpoch();
    if (detail.equals(epoch)) {
      return "";
    }
    return detail.startsWith(epoch + "; ") ? detail.substring(epoch.length() + 2) : detail;
  }

  /**
   * How many replicas of chain {@code index} of {@code s} answer as serving: their node serves, or
   * rebuilds other chains only.
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
   * {@code " under-replicated (2 of 3 serving)"} when fewer of {@code chain}'s replicas serve than
   * the cluster's replication factor; empty otherwise (or when the layout sets none).
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
