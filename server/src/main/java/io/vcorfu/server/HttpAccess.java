package io.vcorfu.server;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.vcorfu.protocol.netty.BearerTokens;
import io.vcorfu.protocol.netty.TlsContexts;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may call a node's HTTP endpoints (metrics, health, status page), the same parties as its RPC
 * port: with TLS, a caller presenting a certificate from the node's CA, valid now; on a node that
 * accepts bearer tokens, also a caller without a certificate whose request carries one of them in
 * an {@code Authorization: Bearer TOKEN} header (as Prometheus's {@code authorization} setting and
 * {@code curl -H} send it).
 *
 * <p>Invariant: on an HTTPS server this class creates, no handler behind {@link #filter} runs for
 * an exchange whose TLS session has no verified client certificate unless the exchange carried a
 * token {@link BearerTokens#principalOf} accepts at that moment; every other exchange is answered
 * 401 with one line saying what to send, and nothing else. Without tokens the TLS handshake itself
 * refuses a caller without a certificate, as before.
 */
final class HttpAccess {
  private static final Logger LOG = LoggerFactory.getLogger(HttpAccess.class);
  private static final String BEARER = "Bearer ";

  private HttpAccess() {}

  /**
   * An HTTP server on {@code host}:{@code port}: plaintext when {@code tls} is null, else HTTPS
   * with the node's TLS material, requiring a client certificate, or only asking for one when
   * {@code tokens} is not null (the {@link #filter} then requires a certificate or a token).
   */
  static HttpServer create(String host, int port, TlsContexts tls, BearerTokens tokens)
      throws IOException {
    InetSocketAddress address = new InetSocketAddress(host, port);
    if (tls == null) {
      return HttpServer.create(address, 16);
    }
    HttpsServer https = HttpsServer.create(address, 16);
    https.setHttpsConfigurator(
        new HttpsConfigurator(tls.jdkContext()) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters p = getSSLContext().getDefaultSSLParameters();
            if (tokens == null) {
              p.setNeedClientAuth(true);
            } else {
              p.setWantClientAuth(true);
            }
            params.setSSLParameters(p);
          }
        });
    return https;
  }

  /**
   * The filter every context of a server made by {@link #create} with {@code tokens} must carry;
   * null when there is nothing to check beyond the handshake.
   */
  static Filter filter(BearerTokens tokens) {
    if (tokens == null) {
      return null;
    }
    return new Filter() {
      @Override
      public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        if (hasCertificate(exchange) || tokenAccepted(exchange, tokens)) {
          chain.doFilter(exchange);
          return;
        }
        LOG.warn(
            "Refused HTTP request {} from {}: no client certificate and no accepted bearer token",
            exchange.getRequestURI().getPath(),
            exchange.getRemoteAddress());
        byte[] body =
            ("send a client certificate from the node's CA, or a token made with vcorfu token"
                    + " create in an 'Authorization: Bearer TOKEN' header\n")
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(401, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }

      @Override
      public String description() {
        return "a client certificate or a bearer token";
      }
    };
  }

  private static boolean hasCertificate(HttpExchange exchange) {
    if (!(exchange instanceof HttpsExchange https)) {
      return false;
    }
    try {
      // The handshake checked any certificate presented against the node's CA.
      return https.getSSLSession().getPeerCertificates().length > 0;
    } catch (SSLPeerUnverifiedException e) {
      return false;
    }
  }

  private static boolean tokenAccepted(HttpExchange exchange, BearerTokens tokens) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return false;
    }
    String token = header.substring(BEARER.length()).strip();
    return !token.isEmpty() && tokens.principalOf(token) != null;
  }
}
