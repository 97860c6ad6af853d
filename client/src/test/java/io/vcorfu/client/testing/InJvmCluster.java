package io.vcorfu.client.testing;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.RequestDispatcher;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.ChainWriteResponse;
import io.vcorfu.protocol.proto.GetLayoutResponse;
import io.vcorfu.protocol.proto.LogTailRequest;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.protocol.proto.StreamTailRequest;
import io.vcorfu.protocol.proto.StreamTailResponse;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.protocol.proto.ViewCallResponse;
import io.vcorfu.sequencer.ReadLeases;
import io.vcorfu.sequencer.Sequencer;
import io.vcorfu.sequencer.SequencerService;
import io.vcorfu.sequencer.StreamTail;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A cluster served in-process on the in-JVM transport (which serializes every message and takes
 * fault rules) by the sequencer, read-lease and replica services themselves, with no server node
 * around them: no remote views (a stand-in answers every view call with its own endpoint), no
 * restarts. Enough to test the client's write and read paths against real replicas.
 *
 * <p>Every endpoint is a node that can host the sequencer and a replica store (both replica roles),
 * as its layout says. Each node checks epochs as a server does: a request stamped with another
 * epoch than the node's sealed one is answered {@code WrongEpoch}, and a node sealed at an epoch
 * whose layout it has not adopted yet answers {@code NotServing}. The test plays the cluster's
 * manager: {@link #kill} takes a node away (requests to it fail to connect), {@link #changeLayout}
 * (or {@link #seal} then {@link #adopt}) moves the cluster to a new layout, typically {@link
 * #withoutNode}: a node taken out of every chain and, if it was the sequencer, the sequencer moved
 * to a fresh sequencer service on the first surviving node, bootstrapped from the replicas' tails.
 */
public final class InJvmCluster implements AutoCloseable {
  public static final Endpoint SEQUENCER = new Endpoint("sequencer", 9000);
  public static final Endpoint LOG_A = new Endpoint("log-a", 9001);
  public static final Endpoint LOG_B = new Endpoint("log-b", 9002);
  public static final Endpoint STREAM_A = new Endpoint("stream-a", 9003);
  public static final Endpoint STREAM_B = new Endpoint("stream-b", 9004);
  public static final Endpoint STREAM_C = new Endpoint("stream-c", 9005);
  public static final Endpoint NODE_0 = new Endpoint("node-0", 9010);
  public static final Endpoint NODE_1 = new Endpoint("node-1", 9011);
  public static final Endpoint NODE_2 = new Endpoint("node-2", 9012);

  private final InJvmTransport transport = new InJvmTransport();
  private final Map<Endpoint, Node> nodes = new LinkedHashMap<>();
  private final List<ClusterStreamLog> clients = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

  /** The newest layout any node has adopted. */
  private volatile Layout layout;

  private InJvmCluster(Layout layout) {
    this.layout = layout;
  }

  /** The five roles of the paper's Figure 3, each on its own endpoint, chains of one replica. */
  public static InJvmCluster fiveNodes() {
    return serving(
        """
        {"clusterId": "test", "epoch": 1, "sequencer": "%s",
         "segments": [{"start": 0, "end": -1,
                       "log": [["%s"], ["%s"]],
                       "stream": [["%s"], ["%s"]]}]}
        """
            .formatted(SEQUENCER, LOG_A, LOG_B, STREAM_A, STREAM_B));
  }

  /**
   * The same five endpoints with every entry kept twice: one log chain {@code [log-a, log-b]} and
   * one stream chain {@code [stream-a, stream-b]}, so any one replica may be taken away.
   */
  public static InJvmCluster replicated() {
    return serving(
        """
        {"clusterId": "test", "epoch": 1, "sequencer": "%s",
         "segments": [{"start": 0, "end": -1,
                       "log": [["%s", "%s"]],
                       "stream": [["%s", "%s"]]}]}
        """
            .formatted(SEQUENCER, LOG_A, LOG_B, STREAM_A, STREAM_B));
  }

  /**
   * Every entry kept twice in the log ({@code [log-a, log-b]}) and three times in its stream chain
   * ({@code [stream-a, stream-b, stream-c]}), so two stream replicas may be taken away one after
   * the other.
   */
  public static InJvmCluster threeStreamReplicas() {
    return serving(
        """
        {"clusterId": "test", "epoch": 1, "sequencer": "%s",
         "segments": [{"start": 0, "end": -1,
                       "log": [["%s", "%s"]],
                       "stream": [["%s", "%s", "%s"]]}]}
        """
            .formatted(SEQUENCER, LOG_A, LOG_B, STREAM_A, STREAM_B, STREAM_C));
  }

  /**
   * Three nodes that each host a log replica and a stream replica, R = 3 as a cluster places them:
   * the log chain {@code [node-0, node-1, node-2]} and the stream chain {@code [node-1, node-2,
   * node-0]} (so each chain's decider is another node), the sequencer on an endpoint of its own.
   */
  public static InJvmCluster threeNodesBothRoles() {
    return serving(
        """
        {"clusterId": "test", "epoch": 1, "sequencer": "%s",
         "segments": [{"start": 0, "end": -1,
                       "log": [["%s", "%s", "%s"]],
                       "stream": [["%s", "%s", "%s"]]}]}
        """
            .formatted(SEQUENCER, NODE_0, NODE_1, NODE_2, NODE_1, NODE_2, NODE_0));
  }

  /**
   * Three nodes, every entry kept twice: the log chain {@code [node-0, node-1]} and the stream
   * chain {@code [node-1, node-2]}, so that two removals (node-2, then node-1) leave the log's
   * first replica alone to decide.
   */
  public static InJvmCluster overlappingChainsOfTwo() {
    return serving(
        """
        {"clusterId": "test", "epoch": 1, "sequencer": "%s",
         "segments": [{"start": 0, "end": -1,
                       "log": [["%s", "%s"]],
                       "stream": [["%s", "%s"]]}]}
        """
            .formatted(SEQUENCER, NODE_0, NODE_1, NODE_1, NODE_2));
  }

  private static InJvmCluster serving(String json) {
    Layout layout = Layout.fromJson(json);
    InJvmCluster cluster = new InJvmCluster(layout);
    for (Endpoint e : layout.allServers()) {
      boolean replica = layout.logServers().contains(e) || layout.streamServers().contains(e);
      cluster.nodes.put(e, cluster.new Node(e, layout, replica));
    }
    // A new cluster: nothing was issued before, so the sequencer starts from empty tails.
    cluster.node(layout.sequencer()).startSequencer(layout.epoch(), -1, Map.of());
    cluster.nodes.values().forEach(Node::bind);
    return cluster;
  }

  private synchronized Node node(Endpoint e) {
    Node n = nodes.get(e);
    if (n == null) {
      throw new IllegalArgumentException(e + " is not a node of this cluster");
    }
    return n;
  }

  /** The newest layout any node of the cluster has adopted. */
  public Layout layout() {
    return layout;
  }

  public Transport transport() {
    return transport;
  }

  public InJvmTransport inJvmTransport() {
    return transport;
  }

  /**
   * Takes {@code endpoint} away as a process that died: it stops listening, so a request to it
   * fails to connect and one it was answering loses its connection. Returns a rule that only counts
   * the requests sent to it from now on (they still fail to connect), for tests that wait until a
   * client has met the dead node.
   */
  public FaultRule kill(Endpoint endpoint) {
    FaultRule seen = transport.faults().add(FaultRule.requests().to(endpoint).delay(Duration.ZERO));
    node(endpoint).unbind();
    return seen;
  }

  /**
   * The current layout without {@code dead}, at the next epoch: {@code dead} taken out of every
   * chain of every segment and, if it was the sequencer, the sequencer moved to the first other
   * node the layout names.
   *
   * @throws IllegalStateException if a chain would be left empty
   */
  public Layout withoutNode(Endpoint dead) {
    Layout from = layout;
    List<Segment> segments = new ArrayList<>();
    for (Segment s : from.segments()) {
      segments.add(
          new Segment(s.start(), s.end(), without(s.log(), dead), without(s.stream(), dead)));
    }
    Endpoint sequencer = from.sequencer();
    if (sequencer.equals(dead)) {
      sequencer =
          from.allServers().stream()
              .filter(e -> !e.equals(dead))
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("no node would be left"));
    }
    return new Layout(from.clusterId(), from.epoch() + 1, sequencer, segments);
  }

  /**
   * The current layout at the next epoch, as a cluster layout (R = 1), with {@code dead} taken out
   * of every chain and the stream chains it was the last replica of left empty: what the manager
   * commits when the only replica of a stream chain fails (degraded mode).
   *
   * @throws IllegalStateException if a log chain would be left empty
   */
  public Layout withEmptyStreamChainsOf(Endpoint dead) {
    Layout from = layout;
    List<Segment> segments = new ArrayList<>();
    for (Segment s : from.segments()) {
      List<List<Endpoint>> stream = new ArrayList<>();
      for (List<Endpoint> chain : s.stream()) {
        stream.add(chain.stream().filter(e -> !e.equals(dead)).toList());
      }
      segments.add(new Segment(s.start(), s.end(), without(s.log(), dead), stream));
    }
    return new Layout(
        from.clusterId(), from.epoch() + 1, from.sequencer(), segments, 1, List.of(dead));
  }

  private static List<List<Endpoint>> without(List<List<Endpoint>> chains, Endpoint dead) {
    List<List<Endpoint>> out = new ArrayList<>();
    for (List<Endpoint> chain : chains) {
      List<Endpoint> kept = chain.stream().filter(e -> !e.equals(dead)).toList();
      if (kept.isEmpty()) {
        throw new IllegalStateException("removing " + dead + " would leave the chain " + chain);
      }
      out.add(kept);
    }
    return out;
  }

  /** {@link #seal} then {@link #adopt} on every node of {@code next}. */
  public void changeLayout(Layout next) {
    seal(next);
    adopt(next, List.copyOf(next.allServers()));
  }

  /**
   * The first half of a layout change: seals {@code next}'s epoch on every node of {@code next}
   * that is alive (each finishes the writes it admitted under older epochs; from then on requests
   * of older epochs are refused and requests of the new one wait, {@code NotServing}, for the
   * layout), then starts a fresh sequencer service on {@code next}'s sequencer, bootstrapped at the
   * new epoch from the tails of every replica of {@code next}; the old sequencer stops.
   */
  public synchronized void seal(Layout next) {
    for (Endpoint e : next.allServers()) {
      Node n = node(e);
      if (n.alive()) {
        n.fence.seal(next.epoch()).join();
      }
    }
    long globalTail = -1;
    Map<StreamId, StreamTail> tails = new HashMap<>();
    for (Endpoint e : next.logServers()) {
      globalTail =
          Math.max(
              globalTail,
              node(e)
                  .store
                  .logReplica()
                  .tail(LogTailRequest.getDefaultInstance())
                  .join()
                  .getTail());
    }
    for (Endpoint e : next.streamServers()) {
      StreamTailResponse r =
          node(e)
              .store
              .streamReplica()
              .tail(StreamTailRequest.newBuilder().setAll(true).build())
              .join();
      globalTail = Math.max(globalTail, r.getMaxGlobal());
      for (StreamTailEntry t : r.getTailsList()) {
        tails.merge(
            StreamId.fromMsg(t.getStream()),
            new StreamTail(t.getTail(), t.getLastGlobal()),
            (a, b) -> a.tail() >= b.tail() ? a : b);
      }
    }
    if (io.vcorfu.sequencer.SequencerBootstrap.needsLogStreamTails(next)) {
      // A stream chain with no replica: its streams' tails are in the log replicas' entries.
      for (Endpoint e : next.logServers()) {
        node(e)
            .store
            .logReplica()
            .streamTails()
            .join()
            .forEach(
                (s, t) ->
                    tails.merge(
                        s, new StreamTail(t[0], t[1]), (a, b) -> a.tail() >= b.tail() ? a : b));
      }
    }
    nodes.values().forEach(Node::stopSequencer);
    node(next.sequencer()).startSequencer(next.epoch(), globalTail, tails);
  }

  /**
   * The second half of a layout change: {@code adopting} (nodes of {@code next}) adopt it: they
   * answer layout requests with it and serve its epoch.
   */
  public synchronized void adopt(Layout next, List<Endpoint> adopting) {
    for (Endpoint e : adopting) {
      node(e).adopted = next;
    }
    if (next.epoch() > layout.epoch()) {
      layout = next;
    }
  }

  public ClusterStreamLog client() {
    return client(StreamLogOptions.defaults());
  }

  /**
   * A client that knows every node of the first layout as a seed, the sequencer first. Its appends
   * take a token and write every copy themselves ({@link StreamLogOptions#withSequencerWrites}
   * off): these nodes serve the replica and sequencer requests only; the sequencer node's whole
   * appends are the server's, tested on real nodes.
   */
  public ClusterStreamLog client(StreamLogOptions options) {
    ClusterStreamLog c =
        ClusterStreamLog.connect(
            transport, List.copyOf(nodes.keySet()), options.withSequencerWrites(false));
    clients.add(c);
    return c;
  }

  /** A client that knows only {@code seeds} (its appends as {@link #client(StreamLogOptions)}). */
  public ClusterStreamLog client(List<Endpoint> seeds, StreamLogOptions options) {
    ClusterStreamLog c =
        ClusterStreamLog.connect(transport, seeds, options.withSequencerWrites(false));
    clients.add(c);
    return c;
  }

  @Override
  public void close() {
    clients.forEach(ClusterStreamLog::close);
    nodes.values().forEach(Node::unbind);
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    transport.close();
  }

  /** One endpoint: its epoch fence, its adopted layout, the roles it hosts. */
  private final class Node {
    final Endpoint endpoint;
    final EpochFence fence;
    final ReplicaStore store;
    volatile Layout adopted;
    volatile SequencerRole sequencer;
    private Transport.ServerBinding binding;

    Node(Endpoint endpoint, Layout layout, boolean replica) {
      this.endpoint = endpoint;
      this.fence = new EpochFence(layout.epoch());
      this.adopted = layout;
      if (replica) {
        try {
          store = ReplicaStore.open(StorageOptions.memory());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        resources.add(store::close);
      } else {
        store = null;
      }
    }

    synchronized boolean alive() {
      return binding != null;
    }

    synchronized void bind() {
      binding = transport.bind(endpoint, handler());
    }

    synchronized void unbind() {
      if (binding != null) {
        binding.close();
        binding = null;
      }
    }

    void startSequencer(long epoch, long globalTail, Map<StreamId, StreamTail> tails) {
      SequencerService s = new SequencerService(new Sequencer());
      // No marker: a fresh sequencer here serves at once, without waiting out leases an earlier
      // sequencer granted, so a client that answered tails from such a lease would be caught.
      ReadLeases leases = new ReadLeases(null);
      s.onIssued(leases::issued);
      resources.add(s::close);
      resources.add(leases::close);
      s.bootstrap(epoch, globalTail, tails).join();
      sequencer = new SequencerRole(s, leases);
    }

    void stopSequencer() {
      SequencerRole s = sequencer;
      sequencer = null;
      if (s != null) {
        s.service().close();
        s.leases().close();
      }
    }

    /** Runs {@code call} if this node serves its sealed epoch and hosts {@code role}. */
    private CompletableFuture<Response> serving(
        String role, boolean hosted, Supplier<CompletableFuture<Response>> call) {
      if (adopted.epoch() < fence.epoch() || !hosted) {
        return CompletableFuture.failedFuture(new NotServingException(role));
      }
      return call.get();
    }

    private RpcHandler sequencerCall(
        BiFunction<SequencerRole, Request, CompletableFuture<Response>> call) {
      return r -> {
        SequencerRole s = sequencer;
        return serving("sequencer", s != null, () -> call.apply(s, r));
      };
    }

    private RpcHandler replicaCall(
        String role, BiFunction<ReplicaStore, Request, CompletableFuture<Response>> call) {
      return r -> serving(role, store != null, () -> call.apply(store, r));
    }

    private RpcHandler handler() {
      String log = "log replica";
      String stream = "stream replica";
      return RequestDispatcher.builder(fence::epoch)
          .on(PayloadCase.GET_LAYOUT, r -> done(layoutResponse(adopted)))
          .on(
              PayloadCase.TOKEN,
              sequencerCall(
                  (s, r) ->
                      s.service()
                          .token(r.getToken())
                          .thenCompose(
                              x ->
                                  s.revealing(
                                      r, lastAddress(x), Response.newBuilder().setToken(x)))))
          .on(
              PayloadCase.TAIL,
              sequencerCall(
                  (s, r) ->
                      s.service()
                          .tail(r.getTail())
                          .thenCompose(
                              x ->
                                  s.revealing(
                                      r, x.getGlobalTail(), Response.newBuilder().setTail(x)))))
          .on(
              PayloadCase.READ_LEASE,
              sequencerCall(
                  (s, r) ->
                      s.leases()
                          .lease(clientOf(r), r.getReadLease())
                          .thenApply(x -> ok(b -> b.setReadLease(x)))))
          .on(
              PayloadCase.CHAIN_WRITE,
              replicaCall(
                  log,
                  (st, r) -> {
                    // As a node does: riding commits first, outside the fence.
                    st.commitRiding(r.getChainWrite());
                    if (ReplicaStore.commitsOnly(r.getChainWrite())) {
                      return CompletableFuture.completedFuture(
                          ok(b -> b.setChainWrite(ChainWriteResponse.getDefaultInstance())));
                    }
                    return fence
                        .admit(
                            r.getChainWrite().getEntry().getEpoch(),
                            () -> st.chainWrite(r.getChainWrite()))
                        .thenApply(x -> ok(b -> b.setChainWrite(x)));
                  }))
          .on(
              PayloadCase.LOG_WRITE,
              replicaCall(
                  log,
                  (st, r) ->
                      fence
                          .admit(
                              r.getLogWrite().getEntry().getEpoch(),
                              () -> st.logReplica().write(r.getLogWrite()))
                          .thenApply(x -> ok(b -> b.setLogWrite(x)))))
          .on(
              PayloadCase.LOG_COMMIT,
              replicaCall(
                  log,
                  (st, r) ->
                      st.logReplica()
                          .commit(r.getLogCommit())
                          .thenApply(x -> ok(b -> b.setLogCommit(x)))))
          .on(
              PayloadCase.LOG_FILL,
              replicaCall(
                  log,
                  (st, r) ->
                      st.logReplica()
                          .fill(r.getLogFill())
                          .thenApply(x -> ok(b -> b.setLogFill(x)))))
          .on(
              PayloadCase.LOG_READ,
              replicaCall(
                  log,
                  (st, r) ->
                      st.logReplica()
                          .read(r.getLogRead())
                          .thenApply(x -> ok(b -> b.setLogRead(x)))))
          .on(
              PayloadCase.LOG_TAIL,
              replicaCall(
                  log,
                  (st, r) ->
                      st.logReplica()
                          .tail(r.getLogTail())
                          .thenApply(x -> ok(b -> b.setLogTail(x)))))
          .on(
              PayloadCase.LOG_TRIM,
              replicaCall(
                  log,
                  (st, r) ->
                      st.logReplica()
                          .trim(r.getLogTrim())
                          .thenApply(x -> ok(b -> b.setLogTrim(x)))))
          .on(
              PayloadCase.STREAM_WRITE,
              replicaCall(
                  stream,
                  (st, r) ->
                      fence
                          .admit(
                              r.getStreamWrite().getEntry().getEpoch(),
                              () -> st.streamReplica().write(r.getStreamWrite()))
                          .thenApply(x -> ok(b -> b.setStreamWrite(x)))))
          .on(
              PayloadCase.STREAM_COMMIT,
              replicaCall(
                  stream,
                  (st, r) ->
                      st.streamReplica()
                          .commit(r.getStreamCommit())
                          .thenApply(x -> ok(b -> b.setStreamCommit(x)))))
          .on(
              PayloadCase.STREAM_FILL,
              replicaCall(
                  stream,
                  (st, r) ->
                      st.streamReplica()
                          .fill(r.getStreamFill())
                          .thenApply(x -> ok(b -> b.setStreamFill(x)))))
          .on(
              PayloadCase.STREAM_READ,
              replicaCall(
                  stream,
                  (st, r) ->
                      st.streamReplica()
                          .read(r.getStreamRead())
                          .thenApply(x -> ok(b -> b.setStreamRead(x)))))
          .on(
              PayloadCase.STREAM_TAIL,
              replicaCall(
                  stream,
                  (st, r) ->
                      st.streamReplica()
                          .tail(r.getStreamTail())
                          .thenApply(x -> ok(b -> b.setStreamTail(x)))))
          .on(
              PayloadCase.STREAM_TRIM,
              replicaCall(
                  stream,
                  (st, r) ->
                      st.streamReplica()
                          .trim(r.getStreamTrim())
                          .thenApply(x -> ok(b -> b.setStreamTrim(x)))))
          .on(
              PayloadCase.VIEW_CALL,
              replicaCall(
                  "object view", (st, r) -> done(ok(b -> b.setViewCall(hostAnswer(endpoint))))))
          .build();
    }
  }

  /** A sequencer service and the read leases it grants. */
  private record SequencerRole(SequencerService service, ReadLeases leases) {
    /**
     * {@code response}, revealing tokens up to {@code address} to {@code r}'s sender once every
     * other lease holder knows them, with the tokens the sender has not acknowledged if it holds a
     * lease (as a node's sequencer answers).
     */
    CompletableFuture<Response> revealing(Request r, long address, Response.Builder response) {
      if (address < 0) {
        return done(response.build());
      }
      StreamId client = clientOf(r);
      return leases
          .visibleTo(client, address)
          .thenApply(
              v -> {
                ReadLeaseResponse push = leases.pushFor(client, address);
                if (push != null) {
                  response.setLeasePush(push);
                }
                return response.build();
              });
    }
  }

  private static StreamId clientOf(Request r) {
    return r.getHeader().hasClientId() ? StreamId.fromMsg(r.getHeader().getClientId()) : null;
  }

  private static long lastAddress(TokenResponse r) {
    long last = -1;
    for (Token t : r.getTokensList()) {
      last = Math.max(last, t.getGlobalAddress());
    }
    for (TokenResponse b : r.getBatchList()) {
      last = Math.max(last, lastAddress(b));
    }
    return last;
  }

  private static Response layoutResponse(Layout l) {
    return Response.newBuilder()
        .setGetLayout(GetLayoutResponse.newBuilder().setLayoutJson(l.toJson()).setEpoch(l.epoch()))
        .build();
  }

  private static Response ok(Function<Response.Builder, Response.Builder> payload) {
    return payload.apply(Response.newBuilder()).build();
  }

  private static CompletableFuture<Response> done(Response r) {
    return CompletableFuture.completedFuture(r);
  }

  static ViewCallResponse hostAnswer(Endpoint host) {
    return ViewCallResponse.newBuilder()
        .setResult(ByteString.copyFrom(host.toString(), StandardCharsets.UTF_8))
        .build();
  }
}
