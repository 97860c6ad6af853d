package io.vcorfu.protocol;

import io.vcorfu.protocol.proto.Header;
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

  /**
   * Answers {@code request} sent by {@code principal}: the subject of the certificate the caller
   * presented on a TLS connection, or null for a caller the transport does not authenticate (a
   * plaintext connection, or a caller in the same process). By default the principal is ignored.
   */
  default CompletableFuture<Response> handle(Request request, String principal) {
    return handle(request);
  }

  /**
   * True when this handler may be sent token requests in their fixed layouts, lone ({@code
   * io.vcorfu.protocol.netty.LoneTokens}) and coalesced ({@code
   * io.vcorfu.protocol.netty.PackedTokenFrames}), which carry neither the streams' names nor the
   * cluster id: a handler that reads neither (one that does not authorize requests by stream name).
   * Such a request reaches {@link #handle(Request, String)} as the protobuf request it stands for.
   * False by default.
   */
  default boolean takesLoneTokens() {
    return false;
  }

  /**
   * The header the transport gives an answer to {@code request} that sets none: the request's
   * epoch, protocol version and request id. A handler on a hot path may set it on the answer it
   * builds, so that the transport sends the answer as it is instead of copying it to add one.
   */
  static Header.Builder answerHeader(Request request) {
    Header h = request.getHeader();
    return Header.newBuilder()
        .setEpoch(h.getEpoch())
        .setProtocolVersion(h.getProtocolVersion())
        .setRequestId(h.getRequestId());
  }
}
