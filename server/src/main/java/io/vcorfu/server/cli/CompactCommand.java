package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.CompactResponse;
import io.vcorfu.server.cluster.NodeCalls;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vcorfu cluster compact}: an on-demand compaction pass on every node of the layout. */
@Command(
    name = "compact",
    mixinStandardHelpOptions = true,
    description =
        "Compact now, on every node of the layout, the sealed segments whose live bytes are below"
            + " a share of their length (as background compaction does below half), and print"
            + " what each node's segment files took before and after. Reads and writes go on"
            + " meanwhile.")
final class CompactCommand implements Callable<Integer> {
  @Option(
      names = "--endpoint",
      defaultValue = "${env:VCORFU_ENDPOINT:-127.0.0.1:9000}",
      description =
          "Nodes to ask for the layout, host:port[,host:port...] (default $VCORFU_ENDPOINT, else"
              + " 127.0.0.1:9000).")
  String endpoint;

  @Option(
      names = "--below",
      defaultValue = "0.9",
      description =
          "Compact segments whose live bytes are below this share of their length, between 0"
              + " and 1 (default ${DEFAULT-VALUE}).")
  double below;

  @Option(
      names = "--timeout",
      defaultValue = "600",
      description = "Seconds to wait for each node (default ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(
      names = "--output",
      defaultValue = "text",
      paramLabel = "FORMAT",
      description = "text or json (default ${DEFAULT-VALUE}).")
  OutputFormat output;

  @picocli.CommandLine.Mixin TlsFlags tls = new TlsFlags();

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    if (!(below > 0 && below < 1)) {
      err.println(
          "vcorfu cluster compact: --below must lie between 0 and 1 (exclusive), not " + below);
      return 2;
    }
    if (timeoutSeconds < 1) {
      err.println("vcorfu cluster compact: --timeout must be at least 1 second");
      return 2;
    }
    List<Endpoint> asked;
    try {
      asked = ClusterCommands.endpoints(endpoint);
    } catch (IllegalArgumentException e) {
      err.println("vcorfu cluster compact: " + e.getMessage());
      return 2;
    }
    try (ShellSession.Held<NettyTransport> transport = ShellSession.transport(spec, tls.options());
        RpcClient rpc =
            transport
                .get()
                .newClient(
                    ClientOptions.defaults()
                        .withRequestTimeout(Duration.ofSeconds(timeoutSeconds)))) {
      NodeCalls calls = new NodeCalls(rpc);
      Layout layout = ClusterStatusCommand.newestLayout(calls, asked);
      Map<Endpoint, CompletableFuture<CompactResponse>> answers = new LinkedHashMap<>();
      for (Endpoint e : layout.allServers()) {
        answers.put(e, calls.compact(e, below));
      }
      PrintWriter out = spec.commandLine().getOut();
      ArrayNode json = Output.mapper().createArrayNode();
      List<String> failed = new ArrayList<>();
      for (Map.Entry<Endpoint, CompletableFuture<CompactResponse>> a : answers.entrySet()) {
        try {
          CompactResponse r = a.getValue().get(timeoutSeconds, TimeUnit.SECONDS);
          ObjectNode n =
              json.addObject()
                  .put("node", a.getKey().toString())
                  .put("segmentsCompacted", r.getSegmentsCompacted())
                  .put("fileBytesBefore", r.getFileBytesBefore())
                  .put("fileBytesAfter", r.getFileBytesAfter());
          if (output == OutputFormat.text) {
            out.printf(
                "%s: %d segment(s) compacted, segment files %s -> %s%n",
                n.get("node").asText(),
                r.getSegmentsCompacted(),
                mib(r.getFileBytesBefore()),
                mib(r.getFileBytesAfter()));
          }
        } catch (Exception e) {
          failed.add(a.getKey() + ": " + VcorfuCli.describe(e));
        }
      }
      if (output == OutputFormat.json) {
        out.println(json);
      }
      out.flush();
      for (String f : failed) {
        err.println("vcorfu cluster compact: " + f);
      }
      return failed.isEmpty() ? 0 : 1;
    }
  }

  private static String mib(long bytes) {
    return String.format("%.1f MiB", bytes / 1048576.0);
  }
}
