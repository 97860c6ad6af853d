package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.linearizability.Register;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restarted sequencer rebuilds its global tail from what the replicas hold, so an address it
 * revealed before (a token nobody wrote) can be issued again; a local view that synced to that
 * revealed tail must still read a later write that took such an address: a caller's read after its
 * own acknowledged write returns it, a write that returns what it replaced is played by the view
 * that made it, and a transaction's read at its snapshot sees it. Before the views read by stream
 * address, the read returned the value before the write (the register) — a linearizability failure
 * first seen in a failover history.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SequencerRestartReadTest {
  @TempDir Path tmp;

  @Test
  void aWriteAtAnAddressAViewHadSyncedPastIsReadAfterTheSequencerRestarts() throws Exception {
    // Below the ephemeral range: the restarted node binds it again, and a port of that range may
    // meanwhile be any outgoing connection's.
    Endpoint at = new Endpoint("127.0.0.1", ServerProcess.freePort());
    Path data = tmp.resolve("data");
    NettyTransport transport = new NettyTransport();
    Node node = Node.start(NodeConfig.durable(at, data), transport);
    node.ready().join();
    try (VCorfuRuntime rt =
        VCorfuRuntime.connect(
            at.toString(),
            RuntimeOptions.defaults(),
            StreamLogOptions.defaults().withFailoverTimeout(Duration.ofSeconds(30)))) {
      Register r = rt.objects().open("register", Register.class);
      CSMRMap<String, String> map = CSMRMap.open(rt, "map", 1);
      Register inTx = rt.objects().open("read in a transaction", Register.class);
      r.set("a");
      inTx.set("a");
      assertThat(map.put("k", "a")).isNull();
      // Tokens of another stream that nobody writes: the sequencer reveals the last as the global
      // tail, five addresses past the last entry written.
      RpcClient raw = transport.newClient(ClientOptions.defaults());
      Response token =
          raw.call(
                  at,
                  Request.newBuilder()
                      .setHeader(Header.newBuilder().setEpoch(node.layout().epoch()))
                      .setToken(
                          TokenRequest.newBuilder()
                              .addStreams(StreamId.of("other").toMsg())
                              .setCount(5))
                      .build())
              .get(10, TimeUnit.SECONDS);
      assertThat(token.hasToken()).as("%s", token).isTrue();
      raw.close();
      assertThat(r.get()).isEqualTo("a");
      assertThat(map.get("k")).isEqualTo("a");
      assertThat(inTx.get()).isEqualTo("a");
      node.close();
      node = Node.start(NodeConfig.durable(at, data), transport);
      node.ready().join();
      // A blind write, then a read by the same caller.
      r.set("b");
      assertThat(r.get()).isEqualTo("b");
      // A write that returns what it replaced (a mutator-accessor: the view plays it to answer).
      assertThat(map.put("k", "b")).isEqualTo("a");
      assertThat(map.get("k")).isEqualTo("b");
      // A transaction's read at its snapshot, of a view no read has synced since the restart.
      inTx.set("b");
      rt.TXBegin();
      String read = inTx.get();
      rt.TXEnd();
      assertThat(read).isEqualTo("b");
    } finally {
      node.close();
      transport.close();
    }
  }
}
