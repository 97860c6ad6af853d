package io.vcorfu.server;

import io.vcorfu.client.rpc.Calls;
import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.LogReplica;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StreamReplica;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.ChainWriteResponse;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.sequencer.ReadLeases;
import io.vcorfu.sequencer.SequencerService;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The request table of a node: one entry per payload case, each bound to the role that serves it.
 */
final class RoleHandlers {
  private RoleHandlers() {}

  /**
   * The handlers of {@code roles}; a request for a role this node does not host is answered {@code
   * NotServing}. {@code layout} is read per request (a seal changes it); writes pass {@code fence}.
   */
  static Map<PayloadCase, RpcHandler> table(
      Roles roles, Supplier<Layout> layout, EpochFence fence) {
    SequencerRole sequencerRole = roles.sequencer();
    SequencerService sequencer = sequencerRole == null ? null : sequencerRole.sequencer();
    ReadLeases leases = sequencerRole == null ? null : sequencerRole.leases();
    WriterTable writers = sequencerRole == null ? null : sequencerRole.writers();
    LogReplica log = roles.log();
    StreamReplica stream = roles.stream();
    ReplicaStore store = roles.store();
    RemoteViewHost views = roles.views();
    Map<PayloadCase, RpcHandler> t = new EnumMap<>(PayloadCase.class);
    // The sequencer answers once it has bootstrapped and every read lease granted before a restart
    // has run out; every answer revealing a token waits until every other lease holder knows it.
    Function<Request, CompletableFuture<Void>> ready =
        r ->
            sequencerRole == null
                ? CompletableFuture.<Void>completedFuture(null)
                : sequencerRole.ready();

    t.put(
        PayloadCase.TOKEN,
        r ->
            ready
                .apply(r)
                .thenCompose(
                    v -> role(sequencer, "sequencer").token(r.getToken(), null, clientOf(r)))
                .thenCompose(
                    x ->
                        revealing(
                            leases,
                            r,
                            PackedTokens.lastAddress(x),
                            Response.newBuilder().setToken(x))));
    t.put(
        PayloadCase.TAIL,
        r ->
            ready
                .apply(r)
                .thenCompose(v -> role(sequencer, "sequencer").tail(r.getTail()))
                .thenCompose(
                    x ->
                        revealing(leases, r, x.getGlobalTail(), Response.newBuilder().setTail(x))));
    t.put(
        PayloadCase.READ_LEASE,
        r ->
            ready
                .apply(r)
                .thenCompose(v -> role(leases, "sequencer").lease(clientOf(r), r.getReadLease()))
                .thenApply(x -> Response.newBuilder().setReadLease(x).build()));

    t.put(
        PayloadCase.SNAPSHOTS,
        r ->
            ready
                .apply(r)
                .thenApply(
                    v ->
                        Response.newBuilder()
                            .setSnapshots(
                                role(sequencerRole, "sequencer")
                                    .snapshots()
                                    .register(clientOf(r), r.getSnapshots()))
                            .build()));

    // Token and data in one request: on the sequencer node when it is every replica, or serves in
    // every log chain and drives the copies itself; the entry's copies pass the fence like every
    // other write, a request sent in an older layout than the node's (parked until the sequencer
    // was ready) is refused with WrongEpoch, and a numbered append is stored at most once (see
    // SequencedWrites).
    t.put(
        PayloadCase.SEQUENCED_WRITE,
        r ->
            ready
                .apply(r)
                .thenCompose(
                    v -> {
                      Layout now = layout.get();
                      if (r.getHeader().getEpoch() != now.epoch()) {
                        // Parked on the sequencer while the layout moved on: refused as the
                        // dispatcher refuses a stale epoch, nothing written; the client retries
                        // on the newer layout (which may no longer let this node write alone).
                        throw new WrongEpochException(r.getHeader().getEpoch(), now.epoch());
                      }
                      return SequencedWrites.write(
                          now,
                          role(sequencer, "sequencer"),
                          role(store, "replica store"),
                          fence,
                          roles.drivers(),
                          writers,
                          clientOf(r),
                          r.getSequencedWrite());
                    })
                .thenCompose(
                    x ->
                        revealing(
                            leases,
                            r,
                            PackedTokens.lastAddress(x.getToken()),
                            Response.newBuilder().setSequencedWrite(x))));

    // Writes of entries whose token epoch is sealed are refused (see EpochFence).
    t.put(
        PayloadCase.LOG_WRITE,
        r ->
            fence
                .admit(
                    r.getLogWrite().getEntry().getEpoch(),
                    () -> role(log, "log replica").write(r.getLogWrite()))
                .thenApply(x -> Response.newBuilder().setLogWrite(x).build()));
    t.put(
        PayloadCase.LOG_COMMIT,
        r ->
            role(log, "log replica")
                .commit(r.getLogCommit())
                .thenApply(x -> Response.newBuilder().setLogCommit(x).build()));
    t.put(
        PayloadCase.LOG_FILL,
        r ->
            role(log, "log replica")
                .fill(r.getLogFill())
                .thenApply(x -> Response.newBuilder().setLogFill(x).build()));
    t.put(
        PayloadCase.LOG_READ,
        r ->
            role(log, "log replica")
                .read(r.getLogRead())
                .thenApply(x -> Response.newBuilder().setLogRead(x).build()));
    t.put(
        PayloadCase.LOG_TAIL,
        r ->
            role(log, "log replica")
                .tail(r.getLogTail())
                .thenApply(x -> Response.newBuilder().setLogTail(x).build()));
    t.put(
        PayloadCase.LOG_TRIM,
        r ->
            role(log, "log replica")
                .trim(r.getLogTrim())
                .thenApply(x -> Response.newBuilder().setLogTrim(x).build()));

    // Consecutive chain visits on this node: only valid when it hosts every role the steps name.
    // A batch is handled write by write, each answered on its own (its failure in its response).
    t.put(
        PayloadCase.CHAIN_WRITE,
        r -> {
          ChainWriteRequest cw = r.getChainWrite();
          if (cw.getBatchCount() == 0) {
            return chainWrite(store, log, stream, fence, cw)
                .thenApply(x -> Response.newBuilder().setChainWrite(x).build());
          }
          List<CompletableFuture<ChainWriteResponse>> answers = new ArrayList<>(cw.getBatchCount());
          for (ChainWriteRequest one : cw.getBatchList()) {
            CompletableFuture<ChainWriteResponse> a;
            try {
              a = chainWrite(store, log, stream, fence, one);
            } catch (RuntimeException e) {
              a = CompletableFuture.failedFuture(e);
            }
            answers.add(
                a.exceptionally(
                    e ->
                        ChainWriteResponse.newBuilder()
                            .setError(Errors.toMsg(Calls.unwrap(e)))
                            .build()));
          }
          return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
              .thenApply(
                  x -> {
                    ChainWriteResponse.Builder b = ChainWriteResponse.newBuilder();
                    answers.forEach(f -> b.addBatch(f.join()));
                    return Response.newBuilder().setChainWrite(b).build();
                  });
        });

    t.put(
        PayloadCase.STREAM_WRITE,
        r ->
            fence
                .admit(
                    r.getStreamWrite().getEntry().getEpoch(),
                    () -> role(stream, "stream replica").write(r.getStreamWrite()))
                .thenApply(x -> Response.newBuilder().setStreamWrite(x).build()));
    t.put(
        PayloadCase.STREAM_COMMIT,
        r ->
            role(stream, "stream replica")
                .commit(r.getStreamCommit())
                .thenApply(x -> Response.newBuilder().setStreamCommit(x).build()));
    t.put(
        PayloadCase.STREAM_FILL,
        r ->
            role(stream, "stream replica")
                .fill(r.getStreamFill())
                .thenApply(x -> Response.newBuilder().setStreamFill(x).build()));
    t.put(
        PayloadCase.STREAM_READ,
        r ->
            role(stream, "stream replica")
                .read(r.getStreamRead())
                .thenApply(x -> Response.newBuilder().setStreamRead(x).build()));
    t.put(
        PayloadCase.STREAM_TAIL,
        r ->
            role(stream, "stream replica")
                .tail(r.getStreamTail())
                .thenApply(x -> Response.newBuilder().setStreamTail(x).build()));
    t.put(
        PayloadCase.STREAM_TRIM,
        r ->
            role(stream, "stream replica")
                .trim(r.getStreamTrim())
                .thenApply(x -> Response.newBuilder().setStreamTrim(x).build()));
    t.put(
        PayloadCase.STREAM_PIN,
        r ->
            role(stream, "stream replica")
                .pin(r.getStreamPin())
                .thenApply(x -> Response.newBuilder().setStreamPin(x).build()));

    t.put(
        PayloadCase.VIEW_CALL,
        r ->
            role(views, "remote-view host")
                .call(r.getViewCall())
                .thenApply(x -> Response.newBuilder().setViewCall(x).build()));
    return t;
  }

  private static StreamId clientOf(Request r) {
    return r.getHeader().hasClientId() ? StreamId.fromMsg(r.getHeader().getClientId()) : null;
  }

  /**
   * {@code response}, revealing tokens up to {@code address} to {@code r}'s sender, once every
   * other lease holder knows them; a sender holding a lease gets the tokens it has not acknowledged
   * with it (see {@link ReadLeases#visibleTo}).
   */
  private static CompletableFuture<Response> revealing(
      ReadLeases l, Request r, long address, Response.Builder response) {
    // Set here, the header is not added later by copying the built answer.
    response.setHeader(RpcHandler.answerHeader(r));
    if (l == null || address < 0) {
      return CompletableFuture.completedFuture(response.build());
    }
    StreamId client = clientOf(r);
    return l.visibleTo(client, address)
        .thenApply(
            v -> {
              ReadLeaseResponse push = l.pushFor(client, address);
              if (push != null) {
                response.setLeasePush(push);
              }
              return response.build();
            });
  }

  private static <T> T role(T role, String name) {
    if (role == null) {
      throw new NotServingException(name);
    }
    return role;
  }

  /**
   * One chain write: the commits riding on it first (not through the fence: committing a copy of an
   * entry every copy holds is right at any epoch), then its steps, admitted at the entry's epoch.
   */
  private static CompletableFuture<ChainWriteResponse> chainWrite(
      ReplicaStore store,
      LogReplica log,
      StreamReplica stream,
      EpochFence fence,
      ChainWriteRequest cw) {
    role(store, "replica store").commitRiding(cw);
    if (ReplicaStore.commitsOnly(cw)) {
      return CompletableFuture.completedFuture(ChainWriteResponse.getDefaultInstance());
    }
    if (cw.getStepsList().stream().anyMatch(s -> s.getLog())) {
      role(log, "log replica");
    }
    if (cw.getStepsList().stream().anyMatch(s -> !s.getLog())) {
      role(stream, "stream replica");
    }
    return fence.admit(cw.getEntry().getEpoch(), () -> role(store, "replica store").chainWrite(cw));
  }
}
