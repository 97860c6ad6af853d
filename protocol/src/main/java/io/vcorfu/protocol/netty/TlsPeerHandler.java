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

  /**
   * What a client tells of a TLS connection to {@code endpoint} that failed with {@code cause}: the
   * reason, and what to check.
   */
  static String clientFailure(io.vcorfu.protocol.Endpoint endpoint, Throwable cause) {
    String reason = reason(cause);
    // Alerts as the JDK's engine names them (bad_certificate), or OpenSSL's (BAD_CERTIFICATE).
    String alert = reason.toLowerCase(java.util.Locale.ROOT);
    String hint;
    if (alert.contains("certificate_required")
        || alert.contains("bad_certificate")
        || alert.contains("certificate_unknown")
        || alert.contains("certificate_expired")
        || alert.contains("alert_unknown_ca")) {
      hint =
          "the node refused this client's certificate: give --tls-cert and --tls-key, a"
              + " certificate from the node's CA, valid now";
    } else if (reason.contains("subject alternative name") || reason.contains("No name matching")) {
      hint =
          "the node's certificate does not name "
              + endpoint.host()
              + ": issue it with that DNS name or IP address as a subject alternative name, or"
              + " dial the node by a name its certificate has";
    } else if (reason.contains("certification path") || reason.contains("validity check")) {
      hint = "the node's certificate is not trusted: give the CA that signed it (--tls-ca)";
    } else {
      hint = "does the node speak TLS, and do both sides trust each other's CA?";
    }
    return "TLS with " + endpoint + " failed: " + reason + " (" + hint + ")";
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
