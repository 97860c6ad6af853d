package io.vcorfu.protocol.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TlsException;
import io.vcorfu.protocol.TlsOptions;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection of a {@link NettyRpcClient} and the calls outstanding on it: it opens the
 * connection (TLS and the bearer token first, when configured), writes requests (in batches from
 * its queue, or at once from its own I/O thread), matches answers to calls by request id, and fails
 * every outstanding call when the connection fails or closes.
 */
final class RpcConnection extends SimpleChannelInboundHandler<Response> {
  private static final Logger LOG = LoggerFactory.getLogger(NettyRpcClient.class);

  private static final int MAX_BATCH_MESSAGES = 1024;
  private static final int MAX_BATCH_BYTES = 256 * 1024;

  /** The request id of a connection's AuthenticateRequest; calls are numbered from 1. */
  static final long AUTHENTICATE_ID = 0;

  private final NettyRpcClient owner;
  final Endpoint endpoint;
  private final NettyRpcClient.Lane lane;
  final ConcurrentHashMap<Long, PendingCall> pending = new ConcurrentHashMap<>();

  /** Requests and fixed asks waiting to be written. */
  final Queue<Object> outbox = new ConcurrentLinkedQueue<>();

  final AtomicBoolean drainScheduled = new AtomicBoolean();
  final CallDeadlines<PendingCall> deadlines;

  volatile Channel channel;
  volatile boolean closed;

  /** Open, with its authentication (if any) written: requests may follow. I/O thread only. */
  boolean established;

  /** Whether the node said it takes fixed token asks ({@link LoneTokens#FEATURE}). */
  volatile boolean takesLoneTokens;

  /** Whether the node said it takes fixed packed token asks ({@link PackedTokenFrames#FEATURE}). */
  volatile boolean takesPackedTokens;

  volatile VCorfuException failure;

  RpcConnection(NettyRpcClient.Lane lane, NettyRpcClient owner) {
    this.lane = lane;
    this.endpoint = lane.endpoint();
    this.owner = owner;
    this.deadlines =
        new CallDeadlines<>(owner.sweeps, c -> c.deadline, c -> c.future.isDone(), this::expire);
  }

  void connect() {
    RpcConnection self = this;
    ChannelFuture f =
        owner
            .bootstrap
            .clone()
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (owner.tls != null) {
                      ch.pipeline().addLast(owner.tls.clientHandler(ch.alloc(), endpoint));
                    }
                    ch.pipeline()
                        .addLast(new FlushConsolidationHandler(256, true))
                        .addLast(Framing.newFrameDecoder(owner.options.maxFrameBytes()))
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
   * With a bearer token ({@link TlsOptions#tokenFile}), writes the {@code AuthenticateRequest} that
   * must come before any other request of the connection (request id 0, answered before them; see
   * {@code ServerRequestHandler}). False, with the connection failed, when the token cannot be
   * read.
   */
  private boolean authenticate() {
    if (owner.tls == null || owner.tls.options().tokenFile() == null) {
      return true;
    }
    String token;
    try {
      token = owner.tls.options().token();
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
   * True when the host reset the connection attempt (nothing listens on the port), as opposed to an
   * attempt that timed out or found no route: only the former says the process is gone.
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

  /** Sends {@code request}: a {@link Request} or a fixed ask ({@link LoneTokens.Frame}). */
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
      bytes += r instanceof LoneTokens.Frame f ? f.bytes() : ((Request) r).getSerializedSize();
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
                + owner.options.requestTimeout().toMillis()
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
    owner.connections.remove(lane, this);
    outbox.clear();
    for (PendingCall call : pending.values()) {
      failCall(call, error);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (msg instanceof LoneTokens.Answered answer) {
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
    int features = response.getHeader().getFeatures();
    if (!takesLoneTokens && (features & LoneTokens.FEATURE) != 0) {
      takesLoneTokens = true;
    }
    if (!takesPackedTokens && (features & PackedTokenFrames.FEATURE) != 0) {
      takesPackedTokens = true;
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
