package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.server.cluster.NodeCalls;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code vcorfu ping}: asks each node whether it serves. */
@Command(
    name = "ping",
    mixinStandardHelpOptions = true,
    description =
        "Ask each node of --endpoint whether it serves: one line per node (NODE serving epoch N,"
            + " NODE not serving: WHY, or NODE unreachable: WHY). Exits 0 when every node serves,"
            + " 1 otherwise.")
final class PingCommand implements Callable<Integer> {
  @Mixin Connection connection = new Connection();
  @Mixin Output output = new Output();
  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    boolean all = true;
    try (ShellSession.Held<NettyTransport> transport =
            ShellSession.transport(spec, connection.tls.options());
        RpcClient rpc =
            transport
                .get()
                .newClient(ClientOptions.defaults().withRequestTimeout(connection.timeout))) {
      NodeCalls calls = new NodeCalls(rpc);
      for (Endpoint e : connection.endpoints.list()) {
        ObjectNode n = Output.mapper().createObjectNode().put("endpoint", e.toString());
        String line;
        long started = System.nanoTime();
        try {
          PingResponse p = connection.await(calls.ping(e), "the ping of " + e);
          double ms = (System.nanoTime() - started) / 1e6;
          n.put("state", p.getServing() ? "serving" : "not serving");
          n.put("epoch", p.getEpoch());
          n.put("millis", Math.round(ms * 100) / 100.0);
          if (!p.getCluster().isEmpty()) {
            n.put("cluster", p.getCluster());
          }
          if (p.getServing()) {
            line = e + " serving epoch " + p.getEpoch() + String.format(" (%.2f ms)", ms);
          } else {
            all = false;
            n.put("reason", p.getNotServingReason());
            line = e + " not serving: " + p.getNotServingReason();
          }
        } catch (Exception failure) {
          all = false;
          String why = VcorfuCli.describe(failure);
          n.put("state", "unreachable");
          n.put("reason", why);
          line = e + " unreachable: " + why;
        }
        out.println(output.json() ? Output.line(n) : line);
      }
    }
    out.flush();
    return all ? VcorfuCli.OK : VcorfuCli.FAILED;
  }
}
