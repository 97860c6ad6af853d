package io.vcorfu.server.cli;

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
        String line;
        long started = System.nanoTime();
        try {
          PingResponse p = connection.await(calls.ping(e), "the ping of " + e);
          all &= p.getServing();
          line = PingLine.answered(e, p, (System.nanoTime() - started) / 1e6, output.json());
        } catch (Exception failure) {
          all = false;
          line = PingLine.unreachable(e, VcorfuCli.describe(failure), output.json());
        }
        out.println(line);
      }
    }
    out.flush();
    return all ? VcorfuCli.OK : VcorfuCli.FAILED;
  }
}
