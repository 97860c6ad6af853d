package io.vcorfu.protocol.netty;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.util.AttributeKey;
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
 * tokens (the handler would take a null principal for a caller in its own process).
 *
 * <p>Fixed token asks, lone ({@link LoneTokens}) and packed ({@link PackedTokenFrames}), are served
 * as the requests they stand for, behind the same checks, by a handler that {@link
 * RpcHandler#takesLoneTokens takes them}; such a server names both features in the header of its
 * first answer on each connection. Stateless and shared by every connection of one server (what it
 * told a connection is the connection's attribute).
 */
@Sharable
final class ServerRequestHandler extends SimpleChannelInboundHandler<Request> {
  private static final Logger LOG = LoggerFactory.getLogger(ServerRequestHandler.class);

  static final String AUTHENTICATE_FIRST =
      "this connection has no principal: connect with a client certificate (--tls-cert and"
          + " --tls-key) or a bearer token (--token-file, made by `vcorfu token create`)";

  /** Set on a connection once this node has told it its features. */
  private static final AttributeKey<Boolean> ADVERTISED =
      AttributeKey.valueOf(ServerRequestHandler.class, "advertised");

  private final RpcHandler handler;
  private final int maxFrameBytes;
  private final BearerTokens tokens;
  private final boolean takesLoneTokens;

  /** A handler of a server that accepts no bearer tokens. */
  ServerRequestHandler(RpcHandler handler, int maxFrameBytes) {
    this(handler, maxFrameBytes, null);
  }

  ServerRequestHandler(RpcHandler handler, int maxFrameBytes, BearerTokens tokens) {
    this.handler = handler;
    this.maxFrameBytes = maxFrameBytes;
    this.tokens = tokens;
    this.takesLoneTokens = handler.takesLoneTokens();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (msg instanceof LoneTokens.Asked asked) {
      Request request = asked.request();
      if (!takesLoneTokens) {
        answer(
            ctx,
            request,
            Errors.toResponse(
                new BadRequestException(
                    "this node takes no fixed token asks (it authorizes requests by stream name):"
                        + " send the token request as a protobuf message")));
        return;
      }
      serve(ctx, request, true);
      return;
    }
    super.channelRead(ctx, msg);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Request request) {
    serve(ctx, request, false);
  }

  /**
   * Serves {@code request}; answers a fixed ask ({@code lone}: lone or packed) fixed when the
   * answer allows and fits this server's frame limit.
   */
  private void serve(ChannelHandlerContext ctx, Request request, boolean lone) {
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
              if (lone) {
                LoneTokens.Frame fixed = LoneTokens.fixedAnswer(request, response);
                if (fixed != null && fixed.bytes() <= maxFrameBytes) {
                  ctx.writeAndFlush(fixed, ctx.voidPromise());
                  return;
                }
              }
              Response limited = HandlerCalls.limitSize(request, response, maxFrameBytes);
              ctx.writeAndFlush(advertised(ctx, limited), ctx.voidPromise());
            });
  }

  /**
   * {@code response}, with the features of this node in its header when it is the first answer of
   * the connection that could carry them (see {@link LoneTokens}).
   */
  private Response advertised(ChannelHandlerContext ctx, Response response) {
    if (!takesLoneTokens || ctx.channel().hasAttr(ADVERTISED)) {
      return response;
    }
    ctx.channel().attr(ADVERTISED).set(Boolean.TRUE);
    return response.toBuilder()
        .setHeader(
            response.getHeader().toBuilder()
                .setFeatures(LoneTokens.FEATURE | PackedTokenFrames.FEATURE))
        .build();
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
