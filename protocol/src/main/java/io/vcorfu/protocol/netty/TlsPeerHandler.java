package io.vcorfu.protocol.netty;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepting end of a TLS connection, right after the {@link SslHandler}: once the handshake
 * completes, keeps the subject of the certificate the peer presented on the channel ({@link
 * TlsContexts#PRINCIPAL}) and logs it; a handshake that fails (no certificate, one from another
 * authority, an expired one, a peer that does not speak TLS) is logged once, naming the peer and
 * the reason, and the connection closed before any request is read. On a node that accepts bearer
 * tokens ({@link #CERTIFICATE_OPTIONAL}) a handshake without a client certificate succeeds and
 * leaves the channel without a principal, which {@link ServerRequestHandler} serves nothing until a
 * token names one. Stateless and shared.
 */
@Sharable
final class TlsPeerHandler extends ChannelInboundHandlerAdapter {
  /** For a node requiring client certificates. */
  static final TlsPeerHandler INSTANCE = new TlsPeerHandler(false);

  /** For a node that also accepts bearer tokens from clients without a certificate. */
  static final TlsPeerHandler CERTIFICATE_OPTIONAL = new TlsPeerHandler(true);

  private static final Logger LOG = LoggerFactory.getLogger(TlsPeerHandler.class);

  private final boolean certificateOptional;

  private TlsPeerHandler(boolean certificateOptional) {
    this.certificateOptional = certificateOptional;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
    if (event instanceof SslHandshakeCompletionEvent done) {
      if (done.isSuccess()) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        String principal;
        try {
          principal = ssl.engine().getSession().getPeerPrincipal().getName();
        } catch (SSLPeerUnverifiedException e) {
          if (certificateOptional) {
            LOG.debug(
                "TLS connection from {} without a certificate: it must give a bearer token",
                ctx.channel().remoteAddress());
            ctx.fireUserEventTriggered(event);
            return;
          }
          // Cannot happen with client certificates required; refuse rather than serve anonymously.
          LOG.warn(
              "Refused TLS connection from {}: no client certificate",
              ctx.channel().remoteAddress());
          ctx.close();
          return;
        }
        ctx.channel().attr(TlsContexts.PRINCIPAL).set(principal);
        LOG.info(
            "TLS connection from {}: principal {} ({})",
            ctx.channel().remoteAddress(),
            principal,
            ssl.engine().getSession().getProtocol());
      } else {
        LOG.warn(
            "Refused TLS connection from {}: {}",
            ctx.channel().remoteAddress(),
            reason(done.cause()));
        ctx.close();
      }
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (isTls(cause)) {
      // The handshake's failure, already logged when its completion event came.
      ctx.close();
      return;
    }
    ctx.fireExceptionCaught(cause);
  }

  /** True when {@code cause} (or what it wraps) is a TLS failure. */
  static boolean isTls(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return true;
      }
    }
    return false;
  }

  /** What went wrong, in words: the innermost message of a TLS failure. */
  static String reason(Throwable cause) {
    String message = null;
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof NotSslRecordException) {
        return "it does not speak TLS (a plaintext client?)";
      }
      if (t instanceof java.nio.channels.ClosedChannelException) {
        return "the peer closed the connection during the TLS handshake";
      }
      if (t.getMessage() != null) {
        message = t.getMessage();
      }
    }
    return message != null ? message : cause.getClass().getSimpleName();
  }
}
