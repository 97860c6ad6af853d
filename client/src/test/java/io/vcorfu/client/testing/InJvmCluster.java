package io.vcorfu.client.testing;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RequestDispatcher;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.GetLayoutResponse;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.sequencer.Sequencer;
import io.vcorfu.sequencer.SequencerService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The five roles of the paper's Figure 3 (one sequencer, two log chains, two stream chains) served
 * in-process on the in-JVM transport (which serializes every message and takes fault rules) by the
 * sequencer and replica services themselves, with no server node around them: no read leases, no
 * remote views, no restarts. Enough to test the client's write and read paths against real
 * replicas.
 */
public final class InJvmCluster implements AutoCloseable {
  public static final Endpoint SEQUENCER = new Endpoint("sequencer", 9000);
  public static final Endpoint LOG_A = new Endpoint("log-a", 9001);
  public static final Endpoint LOG_B = new Endpoint("log-b", 9002);
  public static final Endpoint STREAM_A = new Endpoint("stream-a", 9003);
  public static final Endpoint STREAM_B = new Endpoint("stream-b", 9004);

  private final InJvmTransport transport = new InJvmTransport();
  private final Layout layout;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final List<ClusterStreamLog> clients = new ArrayList<>();

  private InJvmCluster(Layout layout) {
    this.layout = layout;
  }

  /** The five roles, each on its own endpoint, replicas in memory. */
  public static InJvmCluster fiveNodes() {
    Layout layout =
        Layout.fromJson(
            """
            {"clusterId": "test", "epoch": 1, "sequencer": "%s",
             "segments": [{"start": 0, "end": -1,
                           "log": [["%s"], ["%s"]],
                           "stream": [["%s"], ["%s"]]}]}
            """
                .formatted(SEQUENCER, LOG_A, LOG_B, STREAM_A, STREAM_B));
    InJvmCluster cluster = new InJvmCluster(layout);
    cluster.serveSequencer();
    for (Endpoint replica : List.of(LOG_A, LOG_B, STREAM_A, STREAM_B)) {
      cluster.serveReplica(replica);
    }
    return cluster;
  }

  private RequestDispatcher.Builder dispatcher() {
    return RequestDispatcher.builder(layout::epoch)
        .on(
            PayloadCase.GET_LAYOUT,
            r ->
                done(
                    Response.newBuilder()
                        .setGetLayout(
                            GetLayoutResponse.newBuilder()
                                .setLayoutJson(layout.toJson())
                                .setEpoch(layout.epoch()))
                        .build()));
  }

  private void serveSequencer() {
    SequencerService sequencer = new SequencerService(new Sequencer());
    resources.add(sequencer::close);
    // A new cluster: nothing was issued before, so the sequencer starts from empty tails.
    sequencer.bootstrap(layout.epoch(), -1, Map.of()).join();
    bind(
        SEQUENCER,
        dispatcher()
            .on(
                PayloadCase.TOKEN,
                r -> sequencer.token(r.getToken()).thenApply(x -> ok(b -> b.setToken(x))))
            .on(
                PayloadCase.TAIL,
                r -> sequencer.tail(r.getTail()).thenApply(x -> ok(b -> b.setTail(x))))
            .build());
  }

  private void serveReplica(Endpoint endpoint) {
    ReplicaStore store;
    try {
      store = ReplicaStore.open(StorageOptions.memory());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    resources.add(store::close);
    EpochFence fence = new EpochFence(layout.epoch());
    var log = store.logReplica();
    var stream = store.streamReplica();
    bind(
        endpoint,
        dispatcher()
            .on(
                PayloadCase.CHAIN_WRITE,
                r ->
                    fence
                        .admit(
                            r.getChainWrite().getEntry().getEpoch(),
                            () -> store.chainWrite(r.getChainWrite()))
                        .thenApply(x -> ok(b -> b.setChainWrite(x))))
            .on(
                PayloadCase.LOG_WRITE,
                r ->
                    fence
                        .admit(
                            r.getLogWrite().getEntry().getEpoch(), () -> log.write(r.getLogWrite()))
                        .thenApply(x -> ok(b -> b.setLogWrite(x))))
            .on(
                PayloadCase.LOG_COMMIT,
                r -> log.commit(r.getLogCommit()).thenApply(x -> ok(b -> b.setLogCommit(x))))
            .on(
                PayloadCase.LOG_FILL,
                r -> log.fill(r.getLogFill()).thenApply(x -> ok(b -> b.setLogFill(x))))
            .on(
                PayloadCase.LOG_READ,
                r -> log.read(r.getLogRead()).thenApply(x -> ok(b -> b.setLogRead(x))))
            .on(
                PayloadCase.LOG_TAIL,
                r -> log.tail(r.getLogTail()).thenApply(x -> ok(b -> b.setLogTail(x))))
            .on(
                PayloadCase.LOG_TRIM,
                r -> log.trim(r.getLogTrim()).thenApply(x -> ok(b -> b.setLogTrim(x))))
            .on(
                PayloadCase.STREAM_WRITE,
                r ->
                    fence
                        .admit(
                            r.getStreamWrite().getEntry().getEpoch(),
                            () -> stream.write(r.getStreamWrite()))
                        .thenApply(x -> ok(b -> b.setStreamWrite(x))))
            .on(
                PayloadCase.STREAM_COMMIT,
                r ->
                    stream
                        .commit(r.getStreamCommit())
                        .thenApply(x -> ok(b -> b.setStreamCommit(x))))
            .on(
                PayloadCase.STREAM_FILL,
                r -> stream.fill(r.getStreamFill()).thenApply(x -> ok(b -> b.setStreamFill(x))))
            .on(
                PayloadCase.STREAM_READ,
                r -> stream.read(r.getStreamRead()).thenApply(x -> ok(b -> b.setStreamRead(x))))
            .on(
                PayloadCase.STREAM_TAIL,
                r -> stream.tail(r.getStreamTail()).thenApply(x -> ok(b -> b.setStreamTail(x))))
            .on(
                PayloadCase.STREAM_TRIM,
                r -> stream.trim(r.getStreamTrim()).thenApply(x -> ok(b -> b.setStreamTrim(x))))
            .build());
  }

  private void bind(Endpoint endpoint, RpcHandler handler) {
    resources.add(0, transport.bind(endpoint, handler)::close);
  }

  private static Response ok(Function<Response.Builder, Response.Builder> payload) {
    return payload.apply(Response.newBuilder()).build();
  }

  private static CompletableFuture<Response> done(Response r) {
    return CompletableFuture.completedFuture(r);
  }

  public Layout layout() {
    return layout;
  }

  public Transport transport() {
    return transport;
  }

  public InJvmTransport inJvmTransport() {
    return transport;
  }

  public ClusterStreamLog client() {
    return client(StreamLogOptions.defaults());
  }

  public ClusterStreamLog client(StreamLogOptions options) {
    ClusterStreamLog c = ClusterStreamLog.connect(transport, SEQUENCER, options);
    clients.add(c);
    return c;
  }

  @Override
  public void close() {
    clients.forEach(ClusterStreamLog::close);
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    transport.close();
  }
}
