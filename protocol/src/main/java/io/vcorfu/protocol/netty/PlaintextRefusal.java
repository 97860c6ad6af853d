package io.vcorfu.protocol.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.TlsException;
import io.vcorfu.protocol.internal.HandlerCalls;
import io.vcorfu.protocol.proto.Request;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First handler of a TLS server's connection: looks at the first bytes the peer sends. A TLS record
 * (the client's hello) leaves the pipeline as it was built. Anything else is a client that does not
 * speak TLS: the TLS handlers and the request handler leave the pipeline, every request the client
 * sent is answered with a {@code TlsRequired} error (a {@link TlsException} at the client, saying
 * to give the node's CA) instead of being served, and the connection is closed once those answers
 * are written. So a plaintext client learns at once what to change rather than waiting out its
 * timeout, and no request read this way reaches the node. The peer is logged once.
 */
final class PlaintextRefusal extends ByteToMessageDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(PlaintextRefusal.class);

  /** A TLS record header: content type, version, length. */
  private static final int RECORD_HEADER_BYTES = 5;

  static final String MESSAGE =
      "this node serves only TLS connections: connect with --tls-ca FILE (the CA that signed the"
          + " node's certificate; VCORFU_TLS_CA), and --tls-cert/--tls-key if it requires client"
          + " certificates";

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (in.readableBytes() < RECORD_HEADER_BYTES) {
      return;
    }
    ChannelPipeline pipeline = ctx.pipeline();
    if (!SslHandler.isEncrypted(in, false)) {
      LOG.warn(
          "Refused plaintext connection from {}: this node serves only TLS",
          ctx.channel().remoteAddress());
      // The TLS handler, removed, reports a failed handshake: nobody may close on that any more.
      pipeline.remove(TlsPeerHandler.class);
      pipeline.replace(ServerRequestHandler.class, "refuse-plaintext", new Refuse());
      pipeline.remove(SslHandler.class);
    }
    // Removal hands the bytes read so far to the next handler.
    pipeline.remove(this);
  }

  /**
   * Answers each request with TlsRequired, and closes the connection after the first read that
   * completed a request (its answers written first). One per refused connection.
   */
  static final class Refuse extends SimpleChannelInboundHandler<Request> {
    private boolean answered;

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Request request) {
      answered = true;
      ctx.write(
          HandlerCalls.finish(request, Errors.toResponse(new TlsException(MESSAGE, null))),
          ctx.voidPromise());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (answered) {
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
