package io.vcorfu.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.vcorfu.protocol.netty.BearerTokens;
import io.vcorfu.protocol.netty.TlsContexts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's HTTP endpoints (metrics, health, status page) on Netty: plaintext, or TLS through the
 * node's own {@link TlsContexts} (the same engine, OpenSSL's where it loads, the same reloading
 * certificate and trust as its RPC port). Who may call them is the same parties as its RPC port:
 * with TLS, a caller presenting a certificate from the node's CA, valid now; on a node that accepts
 * bearer tokens, also a caller without a certificate whose request carries one of them in an {@code
 * Authorization: Bearer TOKEN} header (as Prometheus's {@code authorization} setting and {@code
 * curl -H} send it).
 *
 * <p>Invariant: on a TLS server this class starts, no {@link Route} runs for a request whose TLS
 * session has no verified client certificate unless the request carried a token {@link
 * BearerTokens#principalOf} accepts at that moment; every other request is answered 401 with one
 * line saying what to send, and nothing else. Without tokens the TLS handshake itself refuses a
 * caller without a certificate.
 *
 * <p>A connection idle for {@link #IDLE} is closed; a TLS handshake not done in 10 s fails (the
 * engine's default); a request line over 4 KiB or headers over 8 KiB (the codec's defaults), or a
 * body over 64 KiB, is refused.
 */
final class HttpAccess implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpAccess.class);
  private static final String BEARER = "Bearer ";

  /** A connection that sends and receives nothing for this long is closed. */
  static final java.time.Duration IDLE = java.time.Duration.ofSeconds(30);

  /** The largest request body read (the endpoints take none). */
  private static final int MAX_REQUEST = 64 << 10;

  /** One answer: status code, content type and body (UTF-8). */
  record Reply(int code, String type, String body) {
    static Reply text(int code, String body) {
      return new Reply(code, "text/plain; charset=utf-8", body);
    }
  }

  /** What answers a request for a path (no query string); runs off the I/O thread. */
  @FunctionalInterface
  interface Route {
    Reply answer(String path) throws Exception;
  }

  private final EventLoopGroup group;
  private final ExecutorService workers;
  private final Channel channel;
  private final boolean tls;

  private HttpAccess(EventLoopGroup group, ExecutorService workers, Channel channel, boolean tls) {
    this.group = group;
    this.workers = workers;
    this.channel = channel;
    this.tls = tls;
  }

  /**
   * Serves {@code route} on {@code host}:{@code port} (0: any free port): plaintext when {@code
   * tls} is null, else TLS requiring a client certificate, or only asking for one when {@code
   * tokens} is not null (a request then needs a certificate or an accepted token).
   */
  static HttpAccess start(String host, int port, TlsContexts tls, BearerTokens tokens, Route route)
      throws IOException {
    return start(host, port, tls, tokens, route, IDLE);
  }

  /** As above, closing connections idle for {@code idle}. */
  static HttpAccess start(
      String host,
      int port,
      TlsContexts tls,
      BearerTokens tokens,
      Route route,
      java.time.Duration idle)
      throws IOException {
    EventLoopGroup group = new NioEventLoopGroup(1, daemon("vcorfu-http-io"));
    ExecutorService workers = Executors.newFixedThreadPool(2, daemon("vcorfu-http"));
    BearerTokens checked = tls == null ? null : tokens;
    ServerBootstrap b =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(
                            new IdleStateHandler(
                                0, 0, idle.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
                    if (tls != null) {
                      ch.pipeline().addLast(tls.serverHandler(ch.alloc(), tokens != null));
                    }
                    ch.pipeline()
                        .addLast(new HttpServerCodec())
                        .addLast(new HttpObjectAggregator(MAX_REQUEST))
                        .addLast(new Dispatch(route, workers, checked));
                  }
                });
    try {
      Channel channel = b.bind(new InetSocketAddress(host, port)).sync().channel();
      return new HttpAccess(group, workers, channel, tls != null);
    } catch (Exception e) {
      group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS);
      workers.shutdownNow();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IOException("cannot serve HTTP on " + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /** Threads named {@code name} that do not keep the process alive. */
  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** {@code https} when the endpoints are served over TLS, else {@code http}. */
  String scheme() {
    return tls ? "https" : "http";
  }

  /** The port the endpoints are served on. */
  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS);
    workers.shutdownNow();
  }

  /** Checks who calls, then answers each request from {@link Route} on a worker thread. */
  private static final class Dispatch extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final Route route;
    private final ExecutorService workers;
    private final BearerTokens tokens;

    Dispatch(Route route, ExecutorService workers, BearerTokens tokens) {
      this.route = route;
      this.workers = workers;
      this.tokens = tokens;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      if (!request.decoderResult().isSuccess()) {
        send(ctx, Reply.text(400, "not an HTTP request this server reads\n"), false, false);
        return;
      }
      boolean keepAlive = HttpUtil.isKeepAlive(request);
      boolean head = HttpMethod.HEAD.equals(request.method());
      String path = new QueryStringDecoder(request.uri()).path();
      if (!HttpMethod.GET.equals(request.method()) && !head) {
        send(ctx, Reply.text(405, "only GET and HEAD\n"), keepAlive, false);
        return;
      }
      if (tokens != null
          && !hasCertificate(ctx)
          && !tokenAccepted(request.headers().get(HttpHeaderNames.AUTHORIZATION))) {
        LOG.warn(
            "Refused HTTP request {} from {}: no client certificate and no accepted bearer token",
            path,
            ctx.channel().remoteAddress());
        FullHttpResponse refused =
            response(
                Reply.text(
                    401,
                    "send a client certificate from the node's CA, or a token made with vcorfu"
                        + " token create in an 'Authorization: Bearer TOKEN' header\n"),
                head);
        refused.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        write(ctx, refused, keepAlive);
        return;
      }
      try {
        workers.execute(
            () -> {
              Reply reply;
              try {
                reply = route.answer(path);
              } catch (Exception e) {
                LOG.warn("HTTP {} failed", path, e);
                reply = Reply.text(500, "the node could not answer: " + e.getMessage() + "\n");
              }
              send(ctx, reply, keepAlive, head);
            });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        ctx.close(); // closing
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
      if (event instanceof IdleStateEvent) {
        ctx.close(); // a caller that went quiet: its connection is not kept open for it
        return;
      }
      super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // A handshake refused or a caller gone: the TLS handler reported it; nothing to answer.
      LOG.debug("HTTP connection from {} ended: {}", ctx.channel().remoteAddress(), cause);
      ctx.close();
    }

    private static boolean hasCertificate(ChannelHandlerContext ctx) {
      SslHandler ssl = ctx.pipeline().get(SslHandler.class);
      if (ssl == null) {
        return false;
      }
      try {
        // The handshake checked any certificate presented against the node's CA.
        return ssl.engine().getSession().getPeerCertificates().length > 0;
      } catch (SSLPeerUnverifiedException e) {
        return false;
      }
    }

    private boolean tokenAccepted(String header) {
      if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
        return false;
      }
      String token = header.substring(BEARER.length()).strip();
      return !token.isEmpty() && tokens.principalOf(token) != null;
    }
  }

  private static FullHttpResponse response(Reply reply, boolean head) {
    byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(reply.code()),
            head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.type());
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    return r;
  }

  private static void send(
      ChannelHandlerContext ctx, Reply reply, boolean keepAlive, boolean head) {
    write(ctx, response(reply, head), keepAlive);
  }

  private static void write(ChannelHandlerContext ctx, FullHttpResponse r, boolean keepAlive) {
    if (keepAlive) {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      ctx.writeAndFlush(r);
    } else {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
