package io.vcorfu.protocol;

import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.concurrent.CompletableFuture;

/**
 * Client side of the RPC layer: pipelined asynchronous requests to any endpoint.
 *
 * <p>{@link #call} assigns the request id (overwriting the header's), sends, and completes with the
 * correlated response, which may carry an error payload: mapping errors to exceptions is the
 * caller's business ({@link Errors}). The future fails with {@link RpcTimeoutException} when no
 * answer arrives in the configured timeout, and with {@link TransportException} when the endpoint
 * cannot be reached or the connection drops; connections are re-established on the next call.
 * Thread-safe.
 */
public interface RpcClient extends AutoCloseable {
  CompletableFuture<Response> call(Endpoint target, Request request);

  @Override
  void close();
}
