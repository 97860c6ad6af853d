package io.vcorfu.protocol.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TlsException;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.UnauthenticatedException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.protocol.proto.AuthenticateRequest;
import io.vcorfu.protocol.proto.ErrorMsg;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TCP client: one lazily opened connection per endpoint, shared by all callers, with any number of
 * pipelined calls correlated by request id.
 *
 * <p>Requests queued by any thread are written by the connection's I/O thread in batches with one
 * flush per batch; a request sent from that thread while nothing waits is written at once. A lone
 * token request goes as a fixed frame ({@link LoneTokens}) to a node that said it takes them.
 * Response futures complete on the I/O thread: dependent stages that block must run on their own
 * executor ({@code thenApplyAsync(fn, executor)}). When a connection fails or closes, every call
 * outstanding on it fails with {@link TransportException} and the next call opens a new connection;
 * calls are never retried here. Thread-safe.
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
  private static final Logger LOG = LoggerFactory.getLogger(NettyRpcClient.class);

  private static final int MAX_BATCH_MESSAGES = 1024;
  private static final int MAX_BATCH_BYTES = 256 * 1024;

  /** The request id of a connection's AuthenticateRequest; calls are numbered from 1. */
  private static final long AUTHENTICATE_ID = 0;

  private final ClientOptions options;
  private final Bootstrap bootstrap;
  private final ScheduledExecutorService sweeps;
  private final long timeoutNanos;
  private final Consumer<NettyRpcClient> onClose;
  private final TlsContexts tls;
  private final AtomicLong ids = new AtomicLong();
  private final ConcurrentHashMap<Endpoint, Connection> connections = new ConcurrentHashMap<>();
  private volatile boolean closed;

  NettyRpcClient(
      ClientOptions options,
      EventLoopGroup group,
      IoFlavor flavor,
      ScheduledExecutorService sweeps,
      TlsContexts tls,
      Consumer<NettyRpcClient> onClose) {
    this.options = options;
    this.tls = tls;
    this.sweeps = sweeps;
    this.timeoutNanos = options.requestTimeout().toNanos();
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
    Connection connection = connectionTo(target);
    if (connection.takesLoneTokens) {
      LoneTokens.Ask ask = LoneTokens.askFor(request, id);
      if (ask != null) {
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
    connection.send(call, tagged);
    return call.future;
  }

  @Override
  public void close() {
    closed = true;
    for (Connection c : connections.values()) {
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
    for (Connection c : connections.values()) {
      held += c.deadlines.held();
    }
    return held;
  }

  private Connection connectionTo(Endpoint target) {
    while (true) {
      Connection current = connections.get(target);
      if (current != null && !current.closed) {
        return current;
      }
      Connection fresh = new Connection(target);
      boolean installed =
          current == null
              ? connections.putIfAbsent(target, fresh) == null
              : connections.replace(target, current, fresh);
      if (installed) {
        fresh.connect();
        return fresh;
      }
    }
  }

  /** One TCP connection and the calls outstanding on it. */
  private final class Connection extends SimpleChannelInboundHandler<Response> {
    final Endpoint endpoint;
    final ConcurrentHashMap<Long, PendingCall> pending = new ConcurrentHashMap<>();

    /** Requests and fixed asks waiting to be written. */
    final Queue<Object> outbox = new ConcurrentLinkedQueue<>();

    final AtomicBoolean drainScheduled = new AtomicBoolean();
    final CallDeadlines<PendingCall> deadlines =
        new CallDeadlines<>(sweeps, c -> c.deadline, c -> c.future.isDone(), this::expire);

    volatile Channel channel;
    volatile boolean closed;

    /** Open, with its authentication (if any) written: requests may follow. I/O thread only. */
    boolean established;

    /** Whether the node said it takes fixed token asks ({@link LoneTokens#FEATURE}). */
    volatile boolean takesLoneTokens;

    volatile VCorfuException failure;

    Connection(Endpoint endpoint) {
      this.endpoint = endpoint;
    }

    void connect() {
      Connection self = this;
      ChannelFuture f =
          bootstrap
              .clone()
              .handler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      if (tls != null) {
                        ch.pipeline().addLast(tls.clientHandler(ch.alloc(), endpoint));
                      }
                      ch.pipeline()
                          .addLast(new FlushConsolidationHandler(256, true))
                          .addLast(Framing.newFrameDecoder(options.maxFrameBytes()))
                          .addLast(ProtoDecoder.RESPONSES)
                          .addLast(ProtoEncoder.INSTANCE)
                          .addLast(self);
                    }
                  })
              .connect(endpoint.host(), endpoint.port());
      channel = f.channel();
      f.addListener(
          done -> {
            if (done.isSuccess() && isSelfConnection(channel)) {
              // Linux can connect a socket to itself when nothing listens on a local port in the
              // ephemeral range; such a connection would hold the port and echo our own requests.
              channel.close();
              fail(
                  TransportException.refused(
                      "cannot connect to " + endpoint + ": nothing listens there", null));
            } else if (done.isSuccess()) {
              if (authenticate()) {
                established = true;
                scheduleDrain();
              }
            } else {
              Throwable cause = done.cause();
              // Nothing was sent on a connection that never opened.
              String why = "cannot connect to " + endpoint + ": " + cause.getMessage();
              fail(
                  isRefusal(cause)
                      ? TransportException.refused(why, cause)
                      : TransportException.neverSent(why, cause));
            }
          });
    }

    /**
     * With a bearer token ({@link TlsOptions#tokenFile}), writes the {@code AuthenticateRequest}
     * that must come before any other request of the connection (request id 0, answered before
     * them; see {@code ServerRequestHandler}). False, with the connection failed, when the token
     * cannot be read.
     */
    private boolean authenticate() {
      if (tls == null || tls.options().tokenFile() == null) {
        return true;
      }
      String token;
      try {
        token = tls.options().token();
      } catch (IllegalArgumentException e) {
        fail(new UnauthenticatedException(e.getMessage()));
        channel.close();
        return false;
      }
      Request hello =
          Request.newBuilder()
              .setHeader(Header.newBuilder().setRequestId(AUTHENTICATE_ID))
              .setAuthenticate(AuthenticateRequest.newBuilder().setToken(token))
              .build();
      channel.write(new ProtoEncoder.Batch(List.of(hello)), channel.voidPromise());
      return true;
    }

    /**
     * True when the host reset the connection attempt (nothing listens on the port), as opposed to
     * an attempt that timed out or found no route: only the former says the process is gone.
     */
    private static boolean isRefusal(Throwable cause) {
      return cause instanceof ConnectException
          && !(cause instanceof ConnectTimeoutException)
          && cause.getMessage() != null
          && cause.getMessage().contains("Connection refused");
    }

    private static boolean isSelfConnection(io.netty.channel.Channel ch) {
      return ch.localAddress() != null && ch.localAddress().equals(ch.remoteAddress());
    }

    /** Sends {@code request}: a {@link Request} or a {@link LoneTokens.Ask}. */
    void send(PendingCall call, Object request) {
      pending.put(call.id, call);
      deadlines.add(call);
      if (closed) {
        VCorfuException why = failure;
        failCall(
            call,
            why != null
                ? why
                : new TransportException("the connection to " + endpoint + " is closed"));
        return;
      }
      Channel ch = channel;
      if (ch != null && ch.eventLoop().inEventLoop() && established && outbox.isEmpty()) {
        // A caller on the connection's own I/O thread (a completion sending the next request)
        // writes at once; while the thread reads, the flush waits for the end of the read.
        ch.write(request, ch.voidPromise());
        ch.flush();
        return;
      }
      outbox.add(request);
      scheduleDrain();
    }

    private void scheduleDrain() {
      Channel ch = channel;
      if (ch != null && drainScheduled.compareAndSet(false, true)) {
        ch.eventLoop().execute(this::drain);
      }
    }

    private void drain() {
      drainScheduled.set(false);
      Channel ch = channel;
      if (!ch.isActive()) {
        return;
      }
      List<Object> batch = new ArrayList<>();
      int bytes = 0;
      Object r;
      while ((r = outbox.poll()) != null) {
        batch.add(r);
        bytes += r instanceof LoneTokens.Ask a ? a.bytes() : ((Request) r).getSerializedSize();
        if (batch.size() >= MAX_BATCH_MESSAGES || bytes >= MAX_BATCH_BYTES) {
          ch.write(new ProtoEncoder.Batch(batch), ch.voidPromise());
          batch = new ArrayList<>();
          bytes = 0;
        }
      }
      if (!batch.isEmpty()) {
        ch.write(new ProtoEncoder.Batch(batch), ch.voidPromise());
      }
      ch.flush();
    }

    private void expire(PendingCall call) {
      pending.remove(call.id, call);
      call.future.completeExceptionally(
          new RpcTimeoutException(
              "no response from "
                  + endpoint
                  + " to "
                  + call.kind
                  + " request "
                  + call.id
                  + " within "
                  + options.requestTimeout().toMillis()
                  + " ms"));
    }

    private void failCall(PendingCall call, VCorfuException error) {
      pending.remove(call.id, call);
      call.future.completeExceptionally(error);
    }

    /** Marks this connection dead and fails every call outstanding on it. */
    void fail(VCorfuException error) {
      if (failure == null) {
        failure = error;
      }
      closed = true;
      connections.remove(endpoint, this);
      outbox.clear();
      for (PendingCall call : pending.values()) {
        failCall(call, error);
      }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
      if (msg instanceof LoneTokens.Answer answer) {
        PendingCall call = pending.remove(answer.requestId());
        if (call == null || call.asked == null) {
          LOG.debug(
              "Fixed token answer {} from {} matches no outstanding fixed ask (timed out?)",
              answer.requestId(),
              endpoint);
          return;
        }
        call.future.complete(answer.response(call.asked));
        return;
      }
      super.channelRead(ctx, msg);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Response response) {
      if (!takesLoneTokens && (response.getHeader().getFeatures() & LoneTokens.FEATURE) != 0) {
        takesLoneTokens = true;
      }
      if (response.getHeader().getRequestId() == AUTHENTICATE_ID) {
        if (response.getPayloadCase() == Response.PayloadCase.ERROR) {
          // The token was refused: every call on this connection fails alike, unretried.
          String why =
              "authentication with " + endpoint + " failed: " + response.getError().getMessage();
          if (failure == null) {
            LOG.warn("{}", why);
          }
          fail(new UnauthenticatedException(why));
          ctx.close();
        }
        return;
      }
      if (response.getPayloadCase() == Response.PayloadCase.ERROR
          && response.getError().getErrorCase() == ErrorMsg.ErrorCase.TLS_REQUIRED) {
        // A TLS node refusing this plaintext connection: every call on it fails alike, unretried.
        String why = "TLS with " + endpoint + " failed: " + response.getError().getMessage();
        if (failure == null) {
          LOG.warn("{}", why);
        }
        fail(new TlsException(why, null));
        ctx.close();
        return;
      }
      PendingCall call = pending.remove(response.getHeader().getRequestId());
      if (call == null) {
        LOG.debug(
            "Response {} from {} matches no outstanding call (timed out?)",
            response.getHeader().getRequestId(),
            endpoint);
        return;
      }
      call.future.complete(response);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      fail(
          new TransportException(
              "the connection to " + endpoint + " closed before the response arrived"));
      ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof SslHandshakeCompletionEvent done && !done.isSuccess()) {
        failTls(ctx, done.cause());
        return;
      }
      ctx.fireUserEventTriggered(event);
    }

    /** Fails the connection's calls with a {@link TlsException} saying what to check. */
    private void failTls(ChannelHandlerContext ctx, Throwable cause) {
      String why = TlsPeerHandler.clientFailure(endpoint, cause);
      if (failure == null) {
        LOG.warn("{}", why);
      }
      fail(new TlsException(why, cause));
      ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (TlsPeerHandler.isTls(cause)) {
        failTls(ctx, cause);
        return;
      }
      if (cause instanceof DecoderException) {
        LOG.warn(
            "Closing connection to {}: it sent bytes that are not a vcorfu response frame: {}",
            endpoint,
            cause.getMessage());
      } else if (cause instanceof IOException) {
        LOG.debug("Connection to {} failed: {}", endpoint, cause.toString());
      } else {
        LOG.warn("Closing connection to {} after an unexpected error", endpoint, cause);
      }
      fail(
          new TransportException(
              "the connection to " + endpoint + " failed: " + cause.getMessage(), cause));
      ctx.close();
    }
  }
}
