package io.vcorfu.protocol;

/**
 * A way to move requests between clients and servers: Netty/TCP in production, an in-JVM transport
 * that still serializes every message (with fault rules) in tests.
 */
public interface Transport extends AutoCloseable {

  /** Starts serving {@code handler} at {@code endpoint}; port 0 picks a free port. */
  ServerBinding bind(Endpoint endpoint, RpcHandler handler);

  /** A new client using this transport. */
  RpcClient newClient(ClientOptions options);

  /**
   * The event loop serving this transport's bound servers that the calling thread runs, or null
   * when it runs none (every thread, for a transport without event loops). Work handed to it runs
   * after the current request's handling, on the thread that sends its response.
   */
  default java.util.concurrent.Executor currentServerLoop() {
    return null;
  }

  @Override
  void close();

  /** A bound server; {@link #endpoint()} is the actual address (port resolved). */
  interface ServerBinding extends AutoCloseable {
    Endpoint endpoint();

    @Override
    void close();
  }
}
