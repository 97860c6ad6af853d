package io.vcorfu.protocol;

import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.concurrent.CompletableFuture;

/**
 * Server side of the RPC layer: answers one request.
 *
 * <p>The transport fills the response header's request id; the handler sets the payload (an error
 * payload for failures, never a thrown exception for expected errors). A future completed
 * exceptionally is answered with a {@code ServerError}. Handlers may be called concurrently from
 * several I/O threads and must not block them: long work completes the future later.
 */
@FunctionalInterface
public interface RpcHandler {
  CompletableFuture<Response> handle(Request request);
}
