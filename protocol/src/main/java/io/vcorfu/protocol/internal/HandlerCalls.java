package io.vcorfu.protocol.internal;

import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.ServerErrorException;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server-side invocation of an {@link RpcHandler} shared by every transport: the returned future
 * never fails, and its response always carries the request's id.
 */
public final class HandlerCalls {
  private static final Logger LOG = LoggerFactory.getLogger(HandlerCalls.class);

  private HandlerCalls() {}

  /**
   * Runs {@code handler} on {@code request}. A handler that throws, returns null or completes
   * exceptionally is answered with the error's wire form ({@link Errors#toResponse}).
   */
  public static CompletableFuture<Response> invoke(RpcHandler handler, Request request) {
    return invoke(handler, request, null);
  }

  /** As {@link #invoke(RpcHandler, Request)}, for a request sent by {@code principal}. */
  public static CompletableFuture<Response> invoke(
      RpcHandler handler, Request request, String principal) {
    CompletableFuture<Response> future;
    try {
      future = handler.handle(request, principal);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(finish(request, failure(request, e)));
    }
    if (future == null) {
      return CompletableFuture.completedFuture(
          finish(
              request,
              Errors.toResponse(
                  new ServerErrorException(
                      "the server's handler gave no answer to a "
                          + request.getPayloadCase()
                          + " request"))));
    }
    return future.handle(
        (response, error) -> {
          if (error != null) {
            return finish(request, failure(request, error));
          }
          if (response == null) {
            return finish(
                request,
                Errors.toResponse(
                    new ServerErrorException(
                        "the server's handler completed a "
                            + request.getPayloadCase()
                            + " request with no response")));
          }
          return finish(request, response);
        });
  }

  /** The response to send: header filled (epoch from the request if empty), request id copied. */
  public static Response finish(Request request, Response response) {
    long id = request.getHeader().getRequestId();
    if (response.hasHeader() && response.getHeader().getRequestId() == id) {
      return response;
    }
    Header.Builder header =
        response.hasHeader()
            ? response.getHeader().toBuilder().setRequestId(id)
            : RpcHandler.answerHeader(request);
    return response.toBuilder().setHeader(header).build();
  }

  /**
   * Replaces {@code response} by a TooLarge error when its encoding exceeds {@code maxFrameBytes},
   * so that the peer receives an answer it can parse instead of a frame it must reject.
   */
  public static Response limitSize(Request request, Response response, int maxFrameBytes) {
    int size = response.getSerializedSize();
    if (size <= maxFrameBytes) {
      return response;
    }
    LOG.warn(
        "Response to {} request {} is {} bytes, over the {}-byte frame limit; answering TooLarge",
        request.getPayloadCase(),
        request.getHeader().getRequestId(),
        size,
        maxFrameBytes);
    return finish(request, Errors.toResponse(new TooLargeException(size, maxFrameBytes)));
  }

  /** The wire answer for a failure; unexpected exceptions are logged and become ServerError. */
  public static Response failure(Request request, Throwable error) {
    Throwable cause = unwrap(error);
    if (cause instanceof VCorfuException) {
      return Errors.toResponse(cause);
    }
    LOG.error(
        "Unexpected failure handling {} request {}",
        request.getPayloadCase(),
        request.getHeader().getRequestId(),
        cause);
    String message =
        cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return Errors.toResponse(
        new ServerErrorException(
            "the server failed handling a " + request.getPayloadCase() + " request: " + message,
            cause));
  }

  /** Strips the {@link CompletionException}/{@link ExecutionException} wrappers of futures. */
  public static Throwable unwrap(Throwable error) {
    Throwable t = error;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
