package io.vcorfu.protocol.netty;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.internal.HandlerCalls;
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
 * connections are unaffected. Stateless and shared by every connection of one server.
 */
@Sharable
final class ServerRequestHandler extends SimpleChannelInboundHandler<Request> {
  private static final Logger LOG = LoggerFactory.getLogger(ServerRequestHandler.class);

  private final RpcHandler handler;
  private final int maxFrameBytes;

  ServerRequestHandler(RpcHandler handler, int maxFrameBytes) {
    this.handler = handler;
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Request request) {
    HandlerCalls.invoke(handler, request, ctx.channel().attr(TlsContexts.PRINCIPAL).get())
        .thenAccept(
            response -> {
              Response limited = HandlerCalls.limitSize(request, response, maxFrameBytes);
              ctx.writeAndFlush(limited, ctx.voidPromise());
            });
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
