package io.vcorfu.client.rpc;

import com.google.protobuf.ByteString;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Tokens;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.ChainWriteResponse;
import io.vcorfu.protocol.proto.LogCommitRequest;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogFillRequest;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogTailRequest;
import io.vcorfu.protocol.proto.LogTailResponse;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.ReadLeaseRequest;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.SequencedWriteRequest;
import io.vcorfu.protocol.proto.SequencedWriteResponse;
import io.vcorfu.protocol.proto.StreamCommitRequest;
import io.vcorfu.protocol.proto.StreamFillRequest;
import io.vcorfu.protocol.proto.StreamReadRequest;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.StreamTailRequest;
import io.vcorfu.protocol.proto.StreamTailResponse;
import io.vcorfu.protocol.proto.StreamTrimRequest;
import io.vcorfu.protocol.proto.StreamWriteRequest;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.protocol.proto.TailResponse;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TxResolution;
import io.vcorfu.protocol.proto.ViewCallRequest;
import io.vcorfu.protocol.proto.ViewCallResponse;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Typed asynchronous calls to the sequencer and the replicas. Thread-safe.
 *
 * <p>A request to a named node is stamped with the epoch of the layout held when it is sent and,
 * refused for a wrong epoch, sent once more at the refreshed layout's epoch (see {@link EpochRpc}).
 * A client {@link #pinnedTo pinned} to a layout instead stamps every request to a node with that
 * layout's epoch and fails a refused one with {@link io.vcorfu.protocol.WrongEpochException}: for a
 * caller whose every step must belong to one layout (a decision, see {@code ChainWriter}).
 */
public final class ReplicaClient {
  /**
   * The most token messages one client keeps in flight; requests that arrive meanwhile go out
   * together in the next (see {@link TokenBatcher}).
   */
  static final int TOKEN_MESSAGES_IN_FLIGHT = 1;

  private final EpochRpc rpc;

  /** The layout every request to a node is stamped with, or null for the one held when sent. */
  private final Layout pinned;

  private final TokenBatcher tokens;

  /**
   * The most chain-write messages one client keeps in flight to one node; writes that arrive
   * meanwhile go out together in the next (see {@link Coalescer}).
   */
  static final int CHAIN_WRITE_MESSAGES_IN_FLIGHT = 2;

  /** The most chain writes one message carries. */
  static final int CHAIN_WRITE_BATCH = 128;

  /**
   * The most bytes of chain writes one message carries: half a node's default frame limit ({@link
   * ClientOptions#DEFAULT_MAX_FRAME_BYTES}), so that concurrent writes of large entries never make
   * a message the node must refuse. A write larger than that goes alone.
   */
  static final long CHAIN_WRITE_BATCH_BYTES = ClientOptions.DEFAULT_MAX_FRAME_BYTES / 2;

  /**
   * Per node, the coalescer of this client's chain writes to it; null when each chain write is a
   * message of its own (the default) and in a pinned client.
   */
  private final java.util.Map<
          Endpoint, Coalescer<ChainWriteRequest, ChainWriteResponse, ChainWriteResponse>>
      chainWrites;

  /** A client whose every chain write is a message of its own. */
  public ReplicaClient(EpochRpc rpc) {
    this(rpc, false);
  }

  /**
   * A client that, with {@code coalesceChainWrites}, sends the chain writes that wait behind its
   * busy messages to a node together ({@code ChainWriteRequest.batch}, see {@link Coalescer}): for
   * a writer with many appends in flight at once, such as a sequencer node driving every client's
   * appends.
   */
  public ReplicaClient(EpochRpc rpc, boolean coalesceChainWrites) {
    this.rpc = rpc;
    this.pinned = null;
    this.chainWrites = coalesceChainWrites ? new java.util.concurrent.ConcurrentHashMap<>() : null;
    this.tokens =
        new TokenBatcher(
            r -> rpc.call(Layout::sequencer, Request.newBuilder().setToken(r)),
            io.vcorfu.protocol.proto.Response::getToken,
            TOKEN_MESSAGES_IN_FLIGHT);
  }

  private ReplicaClient(ReplicaClient of, Layout pinned) {
    this.rpc = of.rpc;
    this.pinned = pinned;
    this.chainWrites = null;
    this.tokens = of.tokens;
  }

  /**
   * This client with every request to a node stamped with {@code layout}'s epoch and never sent
   * again at another: a node sealed at a later epoch refuses it with {@link
   * io.vcorfu.protocol.WrongEpochException}. Requests to the sequencer are not pinned.
   */
  public ReplicaClient pinnedTo(Layout layout) {
    return new ReplicaClient(this, layout);
  }

  /** Sends {@code request} to {@code node}, pinned to this client's layout when it is pinned. */
  public CompletableFuture<io.vcorfu.protocol.proto.Response> call(
      Endpoint node, Request.Builder request) {
    return pinned == null ? rpc.call(node, request) : rpc.callIn(pinned, l -> node, request);
  }

  public EpochRpc rpc() {
    return rpc;
  }

  /**
   * {@code count} consecutive tokens for {@code streams}, conditional on {@code tx} when it is not
   * null. Unconditional requests of concurrent callers are coalesced on the wire ({@link
   * TokenBatcher}); each caller still gets the tokens of its own request.
   */
  public CompletableFuture<Tokens> token(Collection<StreamId> streams, TxResolution tx, int count) {
    if (tx != null) {
      TokenRequest.Builder b = TokenRequest.newBuilder().setCount(count).setTx(tx);
      streams.forEach(s -> b.addStreams(s.toMsg()));
      return rpc.call(Layout::sequencer, Request.newBuilder().setToken(b))
          .thenApply(r -> Tokens.of(r.getToken()));
    }
    // Unconditional: coalesced with this client's other callers' requests while the sequencer is
    // busy with earlier ones.
    // (List.copyOf keeps an unmodifiable list as it is.)
    return tokens.token(new PackedTokens.Ask(List.copyOf(streams), count));
  }

  /** Token messages this client sent and the requests they carried (see {@link TokenBatcher}). */
  public long[] tokenMessagesAndRequests() {
    return tokens.sentMessagesAndRequests();
  }

  /**
   * Token and chain write in one request to a sequencer that hosts every chain (see {@link
   * io.vcorfu.layout.Layout#sequencerHostsEveryChain}).
   */
  public CompletableFuture<SequencedWriteResponse> sequencedWrite(
      Collection<StreamId> streams, TxResolution tx, byte[] payload, long nonce) {
    return sequencedWrite(streams, tx, payload, nonce, Numbering.NONE);
  }

  /**
   * How a sequenced write is numbered: the append's number among this client's appends ({@code
   * seq}, 0 for none), whether an earlier attempt may have been stored ({@code retry}), the lowest
   * address any attempt can have ({@code notBelow}), and the address of an attempt the writer knows
   * aborted ({@code abortedAt}, -1 for none), and the number below which every append of this
   * client has finished ({@code settledBelow}, 0 for none said). See {@code SequencedWriteRequest}
   * in the protocol.
   */
  public record Numbering(
      long seq, boolean retry, long notBelow, long abortedAt, long settledBelow) {
    public static final Numbering NONE = new Numbering(0, false, 0, -1, 0);
  }

  /** A sequenced write numbered by {@code numbering}, stored at most once per number. */
  public CompletableFuture<SequencedWriteResponse> sequencedWrite(
      Collection<StreamId> streams,
      TxResolution tx,
      byte[] payload,
      long nonce,
      Numbering numbering) {
    return sequencedWrite(rpc.layout().current(), streams, tx, payload, nonce, numbering);
  }

  /**
   * A sequenced write chosen because {@code in} has its sequencer host every chain: sent in {@code
   * in}'s epoch, and refused with {@code WrongEpochException} (nothing written) when the node has
   * moved to a newer layout, on which the caller chooses again how to append.
   */
  public CompletableFuture<SequencedWriteResponse> sequencedWrite(
      Layout in,
      Collection<StreamId> streams,
      TxResolution tx,
      byte[] payload,
      long nonce,
      Numbering numbering) {
    TokenRequest.Builder token = TokenRequest.newBuilder().setCount(1);
    streams.forEach(s -> token.addStreams(s.toMsg()));
    if (tx != null) {
      token.setTx(tx);
    }
    SequencedWriteRequest.Builder b =
        SequencedWriteRequest.newBuilder()
            .setToken(token)
            .setPayload(ByteString.copyFrom(payload))
            .setNonce(nonce)
            .setWriterSeq(numbering.seq())
            .setRetry(numbering.retry())
            .setNotBelow(numbering.notBelow())
            .setSettledBelow(numbering.settledBelow());
    if (numbering.abortedAt() >= 0) {
      b.setHasAborted(true).setAbortedAddress(numbering.abortedAt());
    }
    return rpc.callIn(in, Layout::sequencer, Request.newBuilder().setSequencedWrite(b))
        .thenApply(r -> r.getSequencedWrite());
  }

  /**
   * Asks the sequencer for (or renews) a read lease, acknowledging pushes up to {@code applied}.
   */
  public CompletableFuture<ReadLeaseResponse> readLease(int leaseMs, long applied) {
    return readLease(leaseMs, applied, epoch -> {});
  }

  /**
   * {@link #readLease(int, long)}, telling {@code answeredAt} the epoch the sequencer answered in
   * before the answer completes the future.
   */
  public CompletableFuture<ReadLeaseResponse> readLease(
      int leaseMs, long applied, java.util.function.LongConsumer answeredAt) {
    return rpc.call(
            Layout::sequencer,
            Request.newBuilder()
                .setReadLease(
                    ReadLeaseRequest.newBuilder().setLeaseMs(leaseMs).setApplied(applied)))
        .thenApply(
            r -> {
              // The response carries the request's epoch, which the sequencer checked against its
              // own.
              answeredAt.accept(r.getHeader().getEpoch());
              return r.getReadLease();
            });
  }

  /** Registers this client's oldest snapshot in use at the sequencer (see SnapshotsRequest). */
  public CompletableFuture<io.vcorfu.client.SnapshotFloor> snapshots(long oldest, int leaseMs) {
    return rpc.call(
            Layout::sequencer,
            Request.newBuilder()
                .setSnapshots(
                    io.vcorfu.protocol.proto.SnapshotsRequest.newBuilder()
                        .setOldest(oldest)
                        .setLeaseMs(leaseMs)))
        .thenApply(
            r ->
                new io.vcorfu.client.SnapshotFloor(
                    r.getSnapshots().getOldestRegistered(),
                    r.getSnapshots().getComplete(),
                    r.getSnapshots().hasRetention()
                        ? io.vcorfu.client.ClusterRetention.fromWire(
                            r.getSnapshots().getRetention().getRetainVersions(),
                            r.getSnapshots().getRetention().getRetainTimeMs())
                        : io.vcorfu.client.ClusterRetention.NONE));
  }

  /** Ends this client's read lease at the sequencer. */
  public CompletableFuture<ReadLeaseResponse> releaseReadLease() {
    return rpc.call(
            Layout::sequencer,
            Request.newBuilder().setReadLease(ReadLeaseRequest.newBuilder().setRelease(true)))
        .thenApply(r -> r.getReadLease());
  }

  /**
   * Asks {@code node} to seal every epoch below {@code epoch} (any role honours it; see {@code
   * SealRequest}); returns the node's epoch afterwards, which is later than {@code epoch} when the
   * node had already been sealed further.
   */
  public CompletableFuture<Long> seal(Endpoint node, long epoch) {
    return call(
            node,
            Request.newBuilder()
                .setSeal(io.vcorfu.protocol.proto.SealRequest.newBuilder().setEpoch(epoch)))
        .thenApply(r -> r.getSeal().getEpoch());
  }

  public CompletableFuture<TailResponse> tail(Collection<StreamId> streams) {
    TailRequest.Builder b = TailRequest.newBuilder();
    streams.forEach(s -> b.addStreams(s.toMsg()));
    return rpc.call(Layout::sequencer, Request.newBuilder().setTail(b)).thenApply(r -> r.getTail());
  }

  public CompletableFuture<Void> logWrite(Endpoint replica, LogEntryMsg entry, boolean commit) {
    return call(
            replica,
            Request.newBuilder()
                .setLogWrite(LogWriteRequest.newBuilder().setEntry(entry).setCommit(commit)))
        .thenApply(r -> null);
  }

  /** Commits the log copies at {@code addresses} on {@code replica}, in one request. */
  public CompletableFuture<Void> logCommit(Endpoint replica, List<Long> addresses) {
    return call(
            replica,
            Request.newBuilder()
                .setLogCommit(LogCommitRequest.newBuilder().addAllAddresses(addresses)))
        .thenApply(r -> null);
  }

  /** A committed fill of global address {@code address} (see {@code LogFillRequest}). */
  public CompletableFuture<ReadResult> logFill(
      Endpoint replica, long address, boolean abort, long abortNonce) {
    return logFill(replica, address, abort, abortNonce, true);
  }

  /**
   * A fill of global address {@code address}: an empty slot gets a hole, committed iff {@code
   * commit} (see {@code LogFillRequest}).
   */
  public CompletableFuture<ReadResult> logFill(
      Endpoint replica, long address, boolean abort, long abortNonce, boolean commit) {
    return call(
            replica,
            Request.newBuilder()
                .setLogFill(
                    LogFillRequest.newBuilder()
                        .setAddress(address)
                        .setAbort(abort)
                        .setAbortNonce(abortNonce)
                        .setCommit(commit)))
        .thenApply(r -> r.getLogFill().getResult());
  }

  public CompletableFuture<List<ReadResult>> logRead(Endpoint replica, long from, long to) {
    return call(
            replica,
            Request.newBuilder().setLogRead(LogReadRequest.newBuilder().setFrom(from).setTo(to)))
        .thenApply(r -> r.getLogRead().getResultsList());
  }

  public CompletableFuture<LogTailResponse> logTail(Endpoint replica) {
    return logTail(replica, false);
  }

  /** The log replica's tail and, with {@code streams}, every stream's tail as its entries show. */
  public CompletableFuture<LogTailResponse> logTail(Endpoint replica, boolean streams) {
    return call(
            replica,
            Request.newBuilder().setLogTail(LogTailRequest.newBuilder().setStreams(streams)))
        .thenApply(r -> r.getLogTail());
  }

  /** The log replica's tail and trim mark, with the holes it keeps below the mark. */
  public CompletableFuture<LogTailResponse> logKeptHoles(Endpoint replica) {
    return call(
            replica,
            Request.newBuilder().setLogTail(LogTailRequest.newBuilder().setKeptHoles(true)))
        .thenApply(r -> r.getLogTail());
  }

  public CompletableFuture<Void> streamWrite(
      Endpoint replica, LogEntryMsg entry, List<StreamSlot> slots, boolean commit) {
    return call(
            replica,
            Request.newBuilder()
                .setStreamWrite(
                    StreamWriteRequest.newBuilder()
                        .setEntry(entry)
                        .addAllSlots(slots)
                        .setCommit(commit)))
        .thenApply(r -> null);
  }

  /** Consecutive chain visits on one node in one message; see {@code ChainWriteRequest}. */
  public CompletableFuture<ChainWriteResponse> chainWrite(
      Endpoint node, LogEntryMsg entry, List<ChainStep> steps, boolean commitEarlier) {
    return chainWrite(node, entry, steps, commitEarlier, List.of(), List.of());
  }

  /**
   * A chain write carrying commits of other entries' copies on {@code node} ({@code commitLog}: log
   * addresses, {@code commitSlots}: stream slots); with {@code entry} null and no steps, the
   * commits alone (see {@code ChainWriteRequest}).
   */
  public CompletableFuture<ChainWriteResponse> chainWrite(
      Endpoint node,
      LogEntryMsg entry,
      List<ChainStep> steps,
      boolean commitEarlier,
      List<Long> commitLog,
      List<StreamSlot> commitSlots) {
    ChainWriteRequest.Builder b =
        ChainWriteRequest.newBuilder()
            .addAllSteps(steps)
            .setCommitEarlier(commitEarlier)
            .addAllCommitLog(commitLog)
            .addAllCommitSlots(commitSlots);
    if (entry != null) {
      b.setEntry(entry);
    }
    if (chainWrites == null) {
      // Each its own message (a pinned client's are a decision's steps, stamped with its layout).
      return call(node, Request.newBuilder().setChainWrite(b)).thenApply(r -> r.getChainWrite());
    }
    return chainWrites
        .computeIfAbsent(
            node,
            n ->
                Coalescer.chainWrites(
                    n,
                    request ->
                        call(n, Request.newBuilder().setChainWrite(request))
                            .thenApply(r -> r.getChainWrite()),
                    CHAIN_WRITE_MESSAGES_IN_FLIGHT,
                    CHAIN_WRITE_BATCH,
                    CHAIN_WRITE_BATCH_BYTES))
        .submit(b.build());
  }

  public CompletableFuture<Void> streamCommit(Endpoint replica, List<StreamSlot> slots) {
    return call(
            replica,
            Request.newBuilder()
                .setStreamCommit(StreamCommitRequest.newBuilder().addAllSlots(slots)))
        .thenApply(r -> null);
  }

  /** A committed fill of one stream slot (see {@code StreamFillRequest}). */
  public CompletableFuture<ReadResult> streamFill(
      Endpoint replica, StreamId stream, long address, boolean abort, long abortNonce) {
    return streamFill(replica, stream, address, abort, abortNonce, true);
  }

  /**
   * A fill of one stream slot: an empty slot gets a hole, committed iff {@code commit} (see {@code
   * StreamFillRequest}).
   */
  public CompletableFuture<ReadResult> streamFill(
      Endpoint replica,
      StreamId stream,
      long address,
      boolean abort,
      long abortNonce,
      boolean commit) {
    return call(
            replica,
            Request.newBuilder()
                .setStreamFill(
                    StreamFillRequest.newBuilder()
                        .setStream(stream.toMsg())
                        .setStreamAddress(address)
                        .setAbort(abort)
                        .setAbortNonce(abortNonce)
                        .setCommit(commit)))
        .thenApply(r -> r.getStreamFill().getResult());
  }

  public CompletableFuture<List<ReadResult>> streamRead(
      Endpoint replica, StreamId stream, long from, long to) {
    return call(
            replica,
            Request.newBuilder()
                .setStreamRead(
                    StreamReadRequest.newBuilder()
                        .setStream(stream.toMsg())
                        .setFrom(from)
                        .setTo(to)))
        .thenApply(r -> r.getStreamRead().getResultsList());
  }

  public CompletableFuture<StreamTailResponse> streamTail(
      Endpoint replica, Collection<StreamId> streams, boolean all) {
    StreamTailRequest.Builder b = StreamTailRequest.newBuilder().setAll(all);
    streams.forEach(s -> b.addStreams(s.toMsg()));
    return call(replica, Request.newBuilder().setStreamTail(b)).thenApply(r -> r.getStreamTail());
  }

  public CompletableFuture<Long> streamTrim(Endpoint replica, StreamId stream, long before) {
    return call(
            replica,
            Request.newBuilder()
                .setStreamTrim(
                    StreamTrimRequest.newBuilder().setStream(stream.toMsg()).setBefore(before)))
        .thenApply(r -> r.getStreamTrim().getTrimMark());
  }

  /** Runs a remote-view call on {@code host}. */
  public CompletableFuture<ViewCallResponse> viewCall(Endpoint host, ViewCallRequest request) {
    return call(host, Request.newBuilder().setViewCall(request)).thenApply(r -> r.getViewCall());
  }
}
