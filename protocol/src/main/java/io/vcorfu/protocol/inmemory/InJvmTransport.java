package io.vcorfu.protocol.inmemory;

import com.google.protobuf.InvalidProtocolBufferException;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.internal.HandlerCalls;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A transport inside one JVM for tests: no sockets, but every request and response is serialized to
 * bytes and parsed back, and {@link #faults()} can drop, delay, reorder or partition messages while
 * the test runs.
 *
 * <p>Like a TCP connection, each (client, server) pair delivers requests to the server in the order
 * sent and responses to the client in the order produced, unless a fault rule interferes. Delivery
 * and handler calls happen on this transport's daemon threads, never on the caller's. Request
 * timeouts and frame limits of {@link ClientOptions} apply as over TCP. Thread-safe.
 */
public final class InJvmTransport implements Transport {
  private static final AtomicInteger NEXT_PORT = new AtomicInteger(20_000);

  private final ConcurrentHashMap<Endpoint, Server> servers = new ConcurrentHashMap<>();
  private final FaultRules faults = new FaultRules();
  private final ScheduledThreadPoolExecutor executor;
  private final int serverMaxFrameBytes;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Set<Client> clients = ConcurrentHashMap.newKeySet();

  /** Four delivery threads and 16 MiB server frames. */
  public InJvmTransport() {
    this(4, ClientOptions.DEFAULT_MAX_FRAME_BYTES);
  }

  public InJvmTransport(int threads, int serverMaxFrameBytes) {
    AtomicInteger n = new AtomicInteger();
    this.executor =
        new ScheduledThreadPoolExecutor(
            threads,
            r -> {
              Thread t = new Thread(r, "vcorfu-injvm-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.executor.setRemoveOnCancelPolicy(true);
    this.serverMaxFrameBytes = serverMaxFrameBytes;
  }

  /** The fault rules applied to every message of this transport. */
  public FaultRules faults() {
    return faults;
  }

  /**
   * Serves {@code handler} at {@code endpoint}; port 0 picks an unused port.
   *
   * @throws TransportException if a server is already bound there
   */
  @Override
  public ServerBinding bind(Endpoint endpoint, RpcHandler handler) {
    Objects.requireNonNull(handler, "handler");
    checkOpen();
    while (true) {
      Endpoint at =
          endpoint.port() == 0
              ? new Endpoint(endpoint.host(), NEXT_PORT.incrementAndGet())
              : endpoint;
      Server server = new Server(at, handler);
      if (servers.putIfAbsent(at, server) == null) {
        return server;
      }
      if (endpoint.port() != 0) {
        throw new TransportException(
            "cannot listen on " + endpoint + ": a server is already bound there");
      }
    }
  }

  @Override
  public RpcClient newClient(ClientOptions options) {
    Objects.requireNonNull(options, "options");
    checkOpen();
    Client client = new Client(options);
    clients.add(client);
    return client;
  }

  /** Unbinds every server, fails every outstanding call and stops the delivery threads. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    faults.clear();
    servers.values().forEach(Server::close);
    clients.forEach(Client::close);
    executor.shutdownNow();
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("the in-JVM transport is closed");
    }
  }

  private final class Server implements ServerBinding {
    final Endpoint endpoint;
    final RpcHandler handler;
    volatile boolean closed;

    Server(Endpoint endpoint, RpcHandler handler) {
      this.endpoint = endpoint;
      this.handler = handler;
    }

    @Override
    public Endpoint endpoint() {
      return endpoint;
    }

    @Override
    public void close() {
      closed = true;
      servers.remove(endpoint, this);
    }
  }

  /** The two ordered directions between one client and one server endpoint. */
  private final class Link {
    final SerialExecutor requests = new SerialExecutor(executor);
    final SerialExecutor responses = new SerialExecutor(executor);
  }

  private final class Client implements RpcClient {
    final ClientOptions options;
    final AtomicLong ids = new AtomicLong();
    final ConcurrentHashMap<Endpoint, Link> links = new ConcurrentHashMap<>();
    final ConcurrentHashMap<Long, CompletableFuture<Response>> pending = new ConcurrentHashMap<>();
    volatile boolean closed;

    Client(ClientOptions options) {
      this.options = options;
    }

    @Override
    public CompletableFuture<Response> call(Endpoint target, Request request) {
      if (closed || InJvmTransport.this.closed.get()) {
        return CompletableFuture.failedFuture(new TransportException("the RPC client is closed"));
      }
      long id = ids.incrementAndGet();
      Request tagged =
          request.toBuilder().setHeader(request.getHeader().toBuilder().setRequestId(id)).build();
      byte[] bytes = tagged.toByteArray();
      if (bytes.length > options.maxFrameBytes()) {
        return CompletableFuture.failedFuture(
            new TooLargeException(bytes.length, options.maxFrameBytes()));
      }
      CompletableFuture<Response> future = new CompletableFuture<>();
      pending.put(id, future);
      var timeout =
          executor.schedule(
              () ->
                  future.completeExceptionally(
                      new RpcTimeoutException(
                          "no response from "
                              + target
                              + " to "
                              + tagged.getPayloadCase()
                              + " request "
                              + id
                              + " within "
                              + options.requestTimeout().toMillis()
                              + " ms")),
              options.requestTimeout().toNanos(),
              TimeUnit.NANOSECONDS);
      future.whenComplete(
          (r, e) -> {
            timeout.cancel(false);
            pending.remove(id);
          });
      if (closed) {
        future.completeExceptionally(new TransportException("the RPC client is closed"));
        return future;
      }
      Link link = links.computeIfAbsent(target, t -> new Link());
      route(
          FaultRule.Direction.REQUEST,
          target,
          tagged,
          null,
          future,
          link.requests,
          () -> deliverRequest(target, bytes, link, future));
      return future;
    }

    /** Applies the first matching fault rule, then hands {@code delivery} to {@code lane}. */
    private void route(
        FaultRule.Direction direction,
        Endpoint target,
        Request request,
        Response response,
        CompletableFuture<Response> future,
        SerialExecutor lane,
        Runnable delivery) {
      FaultRule rule = faults.match(direction, target, request, response);
      if (rule == null) {
        lane.execute(delivery);
        return;
      }
      switch (rule.action()) {
        case DROP -> {}
        case DUPLICATE -> {
          lane.execute(delivery);
          lane.execute(delivery);
        }
        case PARTITION ->
            future.completeExceptionally(
                direction == FaultRule.Direction.REQUEST
                    ? TransportException.neverSent(
                        "cannot reach " + target + ": the network to it is partitioned", null)
                    : new TransportException(
                        "the connection to "
                            + target
                            + " was lost to a network partition before the response arrived"));
        case DELAY -> {
          try {
            executor.schedule(
                () -> lane.execute(delivery), rule.delay().toNanos(), TimeUnit.NANOSECONDS);
          } catch (RejectedExecutionException e) {
            future.completeExceptionally(new TransportException("the in-JVM transport is closed"));
          }
        }
        case REORDER -> rule.hold(() -> lane.execute(delivery));
        case REPLACE -> {
          Response replaced =
              rule.replacement().toBuilder().setHeader(response.getHeader()).build();
          lane.execute(() -> future.complete(replaced));
        }
      }
    }

    private void deliverRequest(
        Endpoint target, byte[] bytes, Link link, CompletableFuture<Response> future) {
      Server server = servers.get(target);
      if (server == null || server.closed) {
        future.completeExceptionally(
            TransportException.refused(
                "cannot connect to " + target + ": no server is listening there", null));
        return;
      }
      Request request;
      try {
        request = Request.parseFrom(bytes);
      } catch (InvalidProtocolBufferException e) {
        future.completeExceptionally(
            new TransportException("request bytes did not parse: " + e.getMessage(), e));
        return;
      }
      if (faults.partitioned(FaultRule.Direction.REQUEST, target, request)) {
        future.completeExceptionally(
            TransportException.neverSent(
                "cannot reach " + target + ": the network to it is partitioned", null));
        return;
      }
      HandlerCalls.invoke(server.handler, request)
          .thenAccept(
              response -> {
                Response limited = HandlerCalls.limitSize(request, response, serverMaxFrameBytes);
                byte[] out = limited.toByteArray();
                route(
                    FaultRule.Direction.RESPONSE,
                    target,
                    request,
                    limited,
                    future,
                    link.responses,
                    () -> deliverResponse(server, request, out, future));
              });
    }

    private void deliverResponse(
        Server server, Request request, byte[] bytes, CompletableFuture<Response> future) {
      if (faults.partitioned(FaultRule.Direction.RESPONSE, server.endpoint, request)) {
        future.completeExceptionally(
            new TransportException(
                "the connection to "
                    + server.endpoint
                    + " was lost to a network partition before the response arrived"));
        return;
      }
      if (server.closed) {
        future.completeExceptionally(
            new TransportException(
                "the connection to " + server.endpoint + " closed before the response arrived"));
        return;
      }
      if (bytes.length > options.maxFrameBytes()) {
        future.completeExceptionally(
            new TransportException(
                "the response from "
                    + server.endpoint
                    + " is "
                    + bytes.length
                    + " bytes, over this client's "
                    + options.maxFrameBytes()
                    + "-byte frame limit"));
        return;
      }
      try {
        future.complete(Response.parseFrom(bytes));
      } catch (InvalidProtocolBufferException e) {
        future.completeExceptionally(
            new TransportException("response bytes did not parse: " + e.getMessage(), e));
      }
    }

    @Override
    public void close() {
      closed = true;
      for (CompletableFuture<Response> f : pending.values()) {
        f.completeExceptionally(
            new TransportException("the RPC client was closed with this call outstanding"));
      }
      clients.remove(this);
    }
  }
}
