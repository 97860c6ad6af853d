package io.vcorfu.server;

import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.RunCommandResponse;
import java.util.concurrent.CompletableFuture;

/**
 * Where a node's {@code RUN_COMMAND} requests go: the command host its process installed ({@link
 * #serve}; the command line's, which runs one-shot data commands for callers), or, while none is
 * installed, an answer that declines, so the caller runs the command itself. Declining is always
 * safe: a declined request ran nothing.
 */
public final class CommandRequests implements RpcHandler {
  private volatile RpcHandler host;

  /** Has {@code h} answer the requests from now on (null: decline them again). */
  public void serve(RpcHandler h) {
    host = h;
  }

  @Override
  public CompletableFuture<Response> handle(Request request) {
    RpcHandler h = host;
    return h != null
        ? h.handle(request)
        : CompletableFuture.completedFuture(declined("this node runs no commands for callers"));
  }

  /** The answer that ran nothing: the caller runs the command itself; {@code why} says why. */
  public static Response declined(String why) {
    return Response.newBuilder()
        .setRunCommand(RunCommandResponse.newBuilder().setDeclined(true).setDeclinedReason(why))
        .build();
  }
}
