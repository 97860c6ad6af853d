package io.vcorfu.protocol.netty;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.UnauthenticatedException;
import io.vcorfu.protocol.internal.HandlerCalls;
import io.vcorfu.protocol.proto.AuthenticateResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server end of a connection: hands each decoded request to the {@link RpcHandler} and writes the
 * response back, tagged with the request's id. Responses complete in any order; the client
 * correlates them by id.
 *
 * <p>A connection that sends bytes which are not a vcorfu frame (an oversize length prefix, a frame
 * that does not parse) is logged once, naming the peer and the problem, and closed; other
 * connections are unaffected.
 *
 * <p>Bearer tokens (when the server accepts them, see {@link NettyTransport#acceptBearerTokens}):
 * an {@code AuthenticateRequest} is answered here, never by the handler. A token the server accepts
 * becomes the channel's principal ({@link TlsContexts#PRINCIPAL}) for every later request, which
 * the pipeline reads one after another, so no request of the same connection can overtake it; one
 * it does not accept is answered with Unauthenticated and the connection closed. A connection that
 * has a principal already (its certificate's, or an earlier token's) cannot change it. Invariant:
 * no request from a connection without a principal reaches the handler of a server that accepts
 * tokens (the handler would take a null principal for a caller in its own process). Stateless and
 * shared by every connection of one server.
 */
@Sharable
final class ServerRequestHandler extends SimpleChannelInboundHandler<Request> {
  private static final Logger LOG = LoggerFactory.getLogger(ServerRequestHandler.class);

  static final String AUTHENTICATE_FIRST =
      "this connection has no principal: connect with a client certificate (--tls-cert and"
          + " --tls-key) or a bearer token (--token-file, made by `vcorfu token create`)";

  private final RpcHandler handler;
  private final int maxFrameBytes;
  private final BearerTokens tokens;

  /** A handler of a server that accepts no bearer tokens. */
  ServerRequestHandler(RpcHandler handler, int maxFrameBytes) {
    this(handler, maxFrameBytes, null);
  }

  ServerRequestHandler(RpcHandler handler, int maxFrameBytes, BearerTokens tokens) {
    this.handler = handler;
    this.maxFrameBytes = maxFrameBytes;
    this.tokens = tokens;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Request request) {
    String principal = ctx.channel().attr(TlsContexts.PRINCIPAL).get();
    if (request.getPayloadCase() == Request.PayloadCase.AUTHENTICATE) {
      authenticate(ctx, request, principal);
      return;
    }
    if (tokens != null && principal == null) {
      answer(ctx, request, Errors.toResponse(new UnauthenticatedException(AUTHENTICATE_FIRST)));
      return;
    }
    HandlerCalls.invoke(handler, request, principal)
        .thenAccept(
            response -> {
              Response limited = HandlerCalls.limitSize(request, response, maxFrameBytes);
              ctx.writeAndFlush(limited, ctx.voidPromise());
            });
  }

  private void authenticate(ChannelHandlerContext ctx, Request request, String principal) {
    if (tokens == null) {
      answer(
          ctx,
          request,
          Errors.toResponse(
              new BadRequestException(
                  "this node accepts no bearer tokens: connect with a client certificate"
                      + " (--tls-cert and --tls-key)")));
      return;
    }
    if (principal != null) {
      answer(
          ctx,
          request,
          Errors.toResponse(
              new BadRequestException(
                  "this connection is already authenticated as "
                      + principal
                      + "; a connection's principal never changes")));
      return;
    }
    String named = tokens.principalOf(request.getAuthenticate().getToken());
    if (named == null) {
      LOG.warn(
          "Refused connection from {}: a bearer token this node does not accept",
          ctx.channel().remoteAddress());
      Response refused =
          HandlerCalls.finish(
              request,
              Errors.toResponse(
                  new UnauthenticatedException(
                      "the node does not accept this bearer token (mistyped, revoked, or made for"
                          + " another node's token file): ask an administrator for a token made"
                          + " with `vcorfu token create`")));
      ctx.writeAndFlush(refused).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    ctx.channel().attr(TlsContexts.PRINCIPAL).set(named);
    LOG.info(
        "Connection from {} authenticated by bearer token as {}",
        ctx.channel().remoteAddress(),
        named);
    answer(
        ctx,
        request,
        Response.newBuilder()
            .setAuthenticate(AuthenticateResponse.newBuilder().setPrincipal(named))
            .build());
  }

  /** Writes {@code response} as the answer to {@code request}. */
  private static void answer(ChannelHandlerContext ctx, Request request, Response response) {
    ctx.writeAndFlush(HandlerCalls.finish(request, response), ctx.voidPromise());
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!ctx.channel().isOpen()) {
      return;
    }
    if (cause instanceof DecoderException) {
      Throwable problem =
          cause.getClass() == DecoderException.class && cause.getCause() != null
              ? cause.getCause()
              : cause;
      LOG.warn(
          "Closing connection from {}: it sent bytes that are not a vcorfu request frame: {}",
          ctx.channel().remoteAddress(),
          String.valueOf(problem.getMessage()));
    } else if (cause instanceof IOException) {
      LOG.debug("Connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    } else {
      LOG.warn(
          "Closing connection from {} after an unexpected error",
          ctx.channel().remoteAddress(),
          cause);
    }
    ctx.close();
  }
}
