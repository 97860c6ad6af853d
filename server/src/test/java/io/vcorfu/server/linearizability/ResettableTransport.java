package io.vcorfu.server.linearizability;

import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A transport whose clients' connections a test can reset: {@link #resetConnections} closes every
 * connection of every client made by it (their outstanding calls fail, and the servers' answers
 * still to come are lost, as when a TCP connection resets) and later calls open new ones. Wraps a
 * real transport (the Netty one over loopback). Thread-safe.
 */
final class ResettableTransport implements Transport {
  private final Transport delegate;
  private final List<Client> clients = new CopyOnWriteArrayList<>();

  ResettableTransport(Transport delegate) {
    this.delegate = Objects.requireNonNull(delegate);
  }

  @Override
  public ServerBinding bind(Endpoint endpoint, RpcHandler handler) {
    return delegate.bind(endpoint, handler);
  }

  @Override
  public RpcClient newClient(ClientOptions options) {
    Client c = new Client(options);
    clients.add(c);
    return c;
  }

  /** Resets every connection of every client of this transport. */
  void resetConnections() {
    clients.forEach(Client::reset);
  }

  @Override
  public void close() {
    clients.forEach(Client::close);
    delegate.close();
  }

  private final class Client implements RpcClient {
    private final ClientOptions options;
    private volatile RpcClient current;
    private volatile boolean closed;

    Client(ClientOptions options) {
      this.options = options;
      this.current = delegate.newClient(options);
    }

    @Override
    public CompletableFuture<Response> call(Endpoint target, Request request) {
      return current.call(target, request);
    }

    synchronized void reset() {
      if (closed) {
        return;
      }
      RpcClient old = current;
      current = delegate.newClient(options);
      old.close();
    }

    @Override
    public synchronized void close() {
      closed = true;
      current.close();
      clients.remove(this);
    }
  }
}
