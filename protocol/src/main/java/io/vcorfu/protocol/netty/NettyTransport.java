package io.vcorfu.protocol.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.TransportException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * TCP transport on Netty (NIO, daemon threads): length-prefixed protobuf frames ({@link Framing},
 * {@link ProtoDecoder}, {@link ProtoEncoder}), write batching with one flush per batch on both
 * sides.
 *
 * <p>Servers accept frames up to {@code serverMaxFrameBytes}; a response larger than that is
 * replaced by a TooLarge error. Clients use the limit of their {@link ClientOptions}. Closing the
 * transport closes every binding and client it created. Thread-safe.
 *
 * <p>A transport made with {@link TlsOptions} speaks TLS both ways (see {@link TlsContexts} for
 * what that guarantees): its servers require every connecting party to present a certificate from
 * the trusted authorities and keep its subject on the channel ({@link TlsContexts#PRINCIPAL}); its
 * clients check the server's certificate and present their own when they have one. A node's
 * transport therefore also presents the node's certificate on the connections it opens to other
 * nodes. Without TLS options everything is plaintext.
 */
public final class NettyTransport implements Transport {
  private final int serverMaxFrameBytes;
  private final IoFlavor flavor;
  private final EventLoopGroup acceptGroup;
  private final EventLoopGroup serverGroup;
  private final EventLoopGroup clientGroup;
  private final Set<Binding> bindings = ConcurrentHashMap.newKeySet();
  private final Set<NettyRpcClient> clients = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final TlsContexts tls;
  private final ScheduledExecutorService timeoutThread;
  private final DeadlineSweeps sweeps;
  private volatile BearerTokens bearerTokens;

  /** A transport with 16 MiB server frames and one I/O thread per core on each side. */
  public NettyTransport() {
    this(ClientOptions.DEFAULT_MAX_FRAME_BYTES);
  }

  /** A transport whose servers accept frames up to {@code serverMaxFrameBytes}. */
  public NettyTransport(int serverMaxFrameBytes) {
    this(serverMaxFrameBytes, Runtime.getRuntime().availableProcessors());
  }

  /**
   * A transport whose servers accept frames up to {@code serverMaxFrameBytes}, with {@code
   * ioThreads} I/O threads for server connections and as many for client connections.
   */
  public NettyTransport(int serverMaxFrameBytes, int ioThreads) {
    this(serverMaxFrameBytes, ioThreads, IoFlavor.CURRENT);
  }

  /**
   * A TLS transport (16 MiB server frames, one I/O thread per core on each side) using the files
   * {@code tls} names; plaintext when {@code tls} is null.
   *
   * @throws IllegalArgumentException naming the file and what to do when a TLS file is missing,
   *     unreadable or not PEM, or a key does not belong to its certificate
   */
  public NettyTransport(TlsOptions tls) {
    this(
        ClientOptions.DEFAULT_MAX_FRAME_BYTES,
        Runtime.getRuntime().availableProcessors(),
        IoFlavor.CURRENT,
        tls == null ? null : TlsContexts.load(tls));
  }

  NettyTransport(int serverMaxFrameBytes, int ioThreads, IoFlavor flavor) {
    this(serverMaxFrameBytes, ioThreads, flavor, null);
  }

  private NettyTransport(int serverMaxFrameBytes, int ioThreads, IoFlavor flavor, TlsContexts tls) {
    if (serverMaxFrameBytes <= 0 || ioThreads <= 0) {
      throw new IllegalArgumentException("frame size and I/O thread count must be positive");
    }
    this.serverMaxFrameBytes = serverMaxFrameBytes;
    this.tls = tls;
    this.flavor = flavor;
    this.acceptGroup = flavor.group(1, new DefaultThreadFactory("vcorfu-accept", true));
    this.serverGroup = flavor.group(ioThreads, new DefaultThreadFactory("vcorfu-server-io", true));
    this.clientGroup = flavor.group(ioThreads, new DefaultThreadFactory("vcorfu-client-io", true));
    // Request timeouts (CallDeadlines): a thread that sleeps while no call is outstanding, and
    // sweeps every connection holding calls in one pass.
    this.timeoutThread =
        Executors.newSingleThreadScheduledExecutor(
            new DefaultThreadFactory("vcorfu-rpc-timeout", true));
    this.sweeps = new DeadlineSweeps(timeoutThread);
  }

  /**
   * Listens on {@code endpoint} (port 0 picks a free port) and serves every request with {@code
   * handler}.
   *
   * @throws TransportException if the address cannot be bound
   */
  @Override
  public ServerBinding bind(Endpoint endpoint, RpcHandler handler) {
    Objects.requireNonNull(handler, "handler");
    checkOpen();
    if (tls != null && !tls.canServe()) {
      throw new IllegalStateException(
          "a TLS server needs a certificate and key of its own (--tls-cert, --tls-key)");
    }
    ChannelGroup children =
        new DefaultChannelGroup("vcorfu-server-" + endpoint, GlobalEventExecutor.INSTANCE);
    BearerTokens tokens = bearerTokens;
    ServerRequestHandler requests = new ServerRequestHandler(handler, serverMaxFrameBytes, tokens);
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(acceptGroup, serverGroup)
            .channel(flavor.serverChannel())
            .option(ChannelOption.SO_REUSEADDR, true)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    children.add(ch);
                    if (tls != null) {
                      ch.pipeline()
                          .addLast(new PlaintextRefusal())
                          .addLast(tls.serverHandler(ch.alloc(), tokens != null))
                          .addLast(
                              tokens != null
                                  ? TlsPeerHandler.CERTIFICATE_OPTIONAL
                                  : TlsPeerHandler.INSTANCE);
                    }
                    ch.pipeline()
                        .addLast(new FlushConsolidationHandler(256, true))
                        .addLast(Framing.newFrameDecoder(serverMaxFrameBytes))
                        .addLast(ProtoDecoder.REQUESTS)
                        .addLast(ProtoEncoder.INSTANCE)
                        .addLast(requests);
                  }
                });
    ChannelFuture bound = bootstrap.bind(endpoint.host(), endpoint.port()).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      throw new TransportException(
          "cannot listen on " + endpoint + ": " + bound.cause().getMessage(), bound.cause());
    }
    Channel server = bound.channel();
    InetSocketAddress local = (InetSocketAddress) server.localAddress();
    Binding binding = new Binding(new Endpoint(endpoint.host(), local.getPort()), server, children);
    bindings.add(binding);
    return binding;
  }

  /**
   * Lets the servers bound from now on accept clients without a certificate that authenticate with
   * a bearer token: such a connection's first request is an {@code AuthenticateRequest}, answered
   * here with the principal {@code tokens} names for its token (or an Unauthenticated error, and
   * the connection closed); any other request before it is refused with Unauthenticated. Clients
   * with a certificate are served as before. Needs TLS: a token is never read in plaintext.
   *
   * @throws IllegalStateException when this transport speaks plaintext
   */
  public void acceptBearerTokens(BearerTokens tokens) {
    if (tls == null) {
      throw new IllegalStateException(
          "bearer tokens need TLS (--tls-ca, --tls-cert, --tls-key): a token is never read in"
              + " plaintext");
    }
    this.bearerTokens = Objects.requireNonNull(tokens, "tokens");
  }

  /** A new client; its futures complete on this transport's client I/O threads. */
  @Override
  public RpcClient newClient(ClientOptions options) {
    Objects.requireNonNull(options, "options");
    checkOpen();
    NettyRpcClient client =
        new NettyRpcClient(options, clientGroup, flavor, sweeps, tls, clients::remove);
    clients.add(client);
    return client;
  }

  /** The TLS this transport speaks, or null when it speaks plaintext. */
  public TlsContexts tls() {
    return tls;
  }

  /** Closes every binding and client, then stops the I/O threads. Idempotent. */
  @Override
  public java.util.concurrent.Executor currentServerLoop() {
    io.netty.util.concurrent.EventExecutor loop =
        io.netty.util.internal.ThreadExecutorMap.currentExecutor();
    return loop != null && loop.parent() == serverGroup ? loop : null;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (Binding b : bindings) {
      b.close();
    }
    for (NettyRpcClient c : clients) {
      c.close();
    }
    acceptGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    timeoutThread.shutdownNow();
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("the Netty transport is closed");
    }
  }

  /** A listening socket and its accepted connections. */
  final class Binding implements ServerBinding {
    private final Endpoint endpoint;
    private final Channel server;
    private final ChannelGroup children;
    private final AtomicBoolean closed = new AtomicBoolean();

    Binding(Endpoint endpoint, Channel server, ChannelGroup children) {
      this.endpoint = endpoint;
      this.server = server;
      this.children = children;
    }

    @Override
    public Endpoint endpoint() {
      return endpoint;
    }

    /** Stops listening and closes every accepted connection; returns once the port is free. */
    @Override
    public void close() {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      server.close().awaitUninterruptibly();
      children.close().awaitUninterruptibly();
      bindings.remove(this);
    }

    /** The principals of the TLS connections open now (for tests). */
    java.util.List<String> principals() {
      java.util.List<String> out = new java.util.ArrayList<>();
      for (Channel ch : children) {
        String p = ch.attr(TlsContexts.PRINCIPAL).get();
        if (p != null) {
          out.add(p);
        }
      }
      return out;
    }

    @Override
    public String toString() {
      return "server at " + endpoint;
    }
  }
}
