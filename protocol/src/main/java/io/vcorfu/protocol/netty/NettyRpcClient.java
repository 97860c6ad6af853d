package io.vcorfu.protocol.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TlsException;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.UnauthenticatedException;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * TCP client: one lazily opened connection per endpoint, shared by all callers (or {@link
 * ClientOptions#connectionsPerNode} of them, a calling thread always on the same one), with any
 * number of pipelined calls correlated by request id.
 *
 * <p>Requests queued by any thread are written by the connection's I/O thread in batches with one
 * flush per batch; a request sent from that thread while nothing waits is written at once. A lone
 * token request goes as a fixed frame ({@link LoneTokens}), and a packed one as a fixed packed
 * frame ({@link PackedTokenFrames}), to a node that said it takes them. Response futures complete
 * on the I/O thread: dependent stages that block must run on their own executor ({@code
 * thenApplyAsync(fn, executor)}). When a connection fails or closes, every call outstanding on it
 * fails with {@link TransportException} and the next call opens a new connection; calls are never
 * retried here. Thread-safe.
 *
 * <p>With TLS, every connection runs it first (see {@link TlsContexts}); a connection whose TLS
 * fails (the server's certificate is not trusted, the server refused ours) fails its calls with
 * {@link TlsException}, which callers do not retry. So does a plaintext connection to a TLS server,
 * which answers it with a TlsRequired error instead of serving it (see {@link PlaintextRefusal}).
 * With a bearer token ({@link TlsOptions#tokenFile}) every connection sends it first; a token the
 * node refuses fails the connection's calls with {@link UnauthenticatedException}, not retried.
 *
 * <p>Every call waits the same {@link ClientOptions#requestTimeout}, then fails with {@link
 * RpcTimeoutException}; each connection's {@link CallDeadlines} keeps the time.
 */
final class NettyRpcClient implements RpcClient {
  // Package-private fields are read by the client's connections (RpcConnection).
  final ClientOptions options;
  final Bootstrap bootstrap;
  final DeadlineSweeps sweeps;
  private final long timeoutNanos;
  private final Consumer<NettyRpcClient> onClose;
  final TlsContexts tls;
  private final AtomicLong ids = new AtomicLong();
  final ConcurrentHashMap<Lane, RpcConnection> connections = new ConcurrentHashMap<>();
  private final int lanes;
  private volatile boolean closed;

  NettyRpcClient(
      ClientOptions options,
      EventLoopGroup group,
      IoFlavor flavor,
      DeadlineSweeps sweeps,
      TlsContexts tls,
      Consumer<NettyRpcClient> onClose) {
    this.options = options;
    this.tls = tls;
    this.sweeps = sweeps;
    this.timeoutNanos = options.requestTimeout().toNanos();
    this.lanes = options.connectionsPerNode();
    this.onClose = onClose;
    this.bootstrap =
        new Bootstrap()
            .group(group)
            .channel(flavor.socketChannel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()));
  }

  @Override
  public CompletableFuture<Response> call(Endpoint target, Request request) {
    if (closed) {
      return CompletableFuture.failedFuture(new TransportException("the RPC client is closed"));
    }
    long id = ids.incrementAndGet();
    LoneTokens.Frame ask = LoneTokens.askFor(request, id);
    boolean packed = false;
    if (ask == null) {
      ask = PackedTokenFrames.askFor(request, id);
      packed = true;
    }
    if (ask != null) {
      RpcConnection connection = connectionTo(target, Thread.currentThread().getId());
      if (packed ? connection.takesPackedTokens : connection.takesLoneTokens) {
        if (ask.bytes() > options.maxFrameBytes()) {
          return CompletableFuture.failedFuture(
              new TooLargeException(ask.bytes(), options.maxFrameBytes()));
        }
        PendingCall call =
            new PendingCall(id, target, Request.PayloadCase.TOKEN, request, timeoutNanos);
        connection.send(call, ask);
        return call.future;
      }
    }
    Request tagged =
        request.toBuilder().setHeader(request.getHeader().toBuilder().setRequestId(id)).build();
    int size = tagged.getSerializedSize();
    if (size > options.maxFrameBytes()) {
      return CompletableFuture.failedFuture(new TooLargeException(size, options.maxFrameBytes()));
    }
    PendingCall call = new PendingCall(id, target, tagged.getPayloadCase(), null, timeoutNanos);
    connectionTo(target, laneKey(request)).send(call, tagged);
    return call.future;
  }

  @Override
  public void close() {
    closed = true;
    for (RpcConnection c : connections.values()) {
      c.fail(
          new TransportException(
              "the RPC client was closed with calls to " + c.endpoint + " outstanding"));
      if (c.channel != null) {
        c.channel.close();
      }
    }
    onClose.accept(this);
  }

  /** Connections currently open or opening (for tests and metrics). */
  int connectionCount() {
    return connections.size();
  }

  /**
   * Calls held for timeout sweeps on every connection (outstanding, or answered and not yet swept
   * out) and whether any sweep is scheduled: {@code 0} and none once every call is answered and a
   * sweep has passed (for tests).
   */
  long heldForSweeps() {
    long held = 0;
    for (RpcConnection c : connections.values()) {
      held += c.deadlines.held();
    }
    return held;
  }

  /** One of a client's connections to a node: the node and the connection's number, from 0. */
  record Lane(Endpoint endpoint, int index) {}

  /**
   * What picks the connection of {@code request}: the number of a numbered append (every attempt of
   * one append on one connection, so that a retry never overtakes an attempt before it: the node
   * tells a retry from a first attempt by arriving after it), else the calling thread's id.
   */
  private static long laneKey(Request request) {
    if (request.getPayloadCase() == Request.PayloadCase.SEQUENCED_WRITE) {
      long seq = request.getSequencedWrite().getWriterSeq();
      if (seq != 0) {
        return seq;
      }
    }
    return Thread.currentThread().getId();
  }

  /** The connection to {@code target} that {@code key} picks, opened if need be. */
  private RpcConnection connectionTo(Endpoint target, long key) {
    Lane lane = new Lane(target, lanes == 1 ? 0 : (int) Math.floorMod(key, (long) lanes));
    while (true) {
      RpcConnection current = connections.get(lane);
      if (current != null && !current.closed) {
        return current;
      }
      RpcConnection fresh = new RpcConnection(lane, this);
      boolean installed =
          current == null
              ? connections.putIfAbsent(lane, fresh) == null
              : connections.replace(lane, current, fresh);
      if (installed) {
        fresh.connect();
        return fresh;
      }
    }
  }
}
