package io.vcorfu.protocol.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AttributeKey;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.TlsOptions;
import java.security.GeneralSecurityException;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/**
 * The TLS contexts of one party, built from its {@link TlsOptions} and following its files as they
 * change (see {@link ReloadingTlsMaterial}): for the connections it accepts ({@link
 * #serverHandler}), for those it opens ({@link #clientHandler}), and a JDK {@link SSLContext} for
 * an HTTPS server ({@link #jdkContext}).
 *
 * <p>What TLS guarantees here: TLS 1.2 or 1.3 with the engine's default cipher suites, so every
 * byte between the two ends is encrypted and integrity-protected. The engine is OpenSSL's
 * (BoringSSL, through netty-tcnative) where its native library loads, the JDK's otherwise, or the
 * one the system property {@value #ENGINE_PROPERTY} names ({@code openssl} or {@code jdk}); both
 * run the same checks below with the same trust and key managers. A party accepting connections
 * requires the other end to present a certificate chain to one of its trusted authorities, valid
 * now (mutual TLS); the certificate's subject is then the connection's principal ({@link
 * #PRINCIPAL}). A party connecting checks that the server's certificate chains to one of its
 * trusted authorities, valid now, and that it names the host dialled (a DNS name or IP address of
 * its subject alternative names, as HTTPS clients check), so a certificate issued for one node
 * cannot stand in for another. A node that accepts bearer tokens lets a client connect without a
 * certificate; such a connection has no principal until its token names one (see {@link
 * NettyTransport#acceptBearerTokens}).
 */
public final class TlsContexts {
  /** The subject of the certificate the other end of an accepted connection presented. */
  public static final AttributeKey<String> PRINCIPAL = AttributeKey.valueOf("vcorfu.tls.principal");

  private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

  /** The system property that picks the TLS engine: {@code openssl} or {@code jdk}. */
  public static final String ENGINE_PROPERTY = "vcorfu.tls.engine";

  private static volatile SslProvider engine; // chosen at the first load, then fixed

  private final ReloadingTlsMaterial material;
  private final SslContext server;
  private final SslContext serverCertificateOptional;
  private final SslContext client;

  private TlsContexts(ReloadingTlsMaterial material, SslProvider provider) throws SSLException {
    this.material = material;
    KeyManager keys = material.keyManager();
    TrustManager trust = material.trustManager();
    this.server =
        material.current().key() == null
            ? null
            : SslContextBuilder.forServer(keys)
                .trustManager(trust)
                .clientAuth(ClientAuth.REQUIRE)
                .sslProvider(provider)
                .protocols(PROTOCOLS)
                .build();
    this.serverCertificateOptional =
        material.current().key() == null
            ? null
            : SslContextBuilder.forServer(keys)
                .trustManager(trust)
                .clientAuth(ClientAuth.OPTIONAL)
                .sslProvider(provider)
                .protocols(PROTOCOLS)
                .build();
    SslContextBuilder forClient =
        SslContextBuilder.forClient()
            .trustManager(trust)
            .sslProvider(provider)
            .protocols(PROTOCOLS);
    if (material.current().key() != null) {
      forClient.keyManager(keys);
    }
    this.client = forClient.build();
  }

  /**
   * The engine {@code wanted} names: {@code jdk}, {@code openssl} (which must load), or the empty
   * string for OpenSSL where it loads and the JDK's engine otherwise.
   *
   * @throws IllegalStateException if {@code openssl} is asked for and its library does not load, or
   *     {@code wanted} names no engine
   */
  static SslProvider engine(String wanted) {
    switch (wanted) {
      case "jdk":
        return SslProvider.JDK;
      case "openssl":
        if (!OpenSsl.isAvailable()) {
          throw new IllegalStateException(
              "-D"
                  + ENGINE_PROPERTY
                  + "=openssl, but OpenSSL's library does not load here ("
                  + OpenSsl.unavailabilityCause()
                  + "): leave the property out to use the JDK's engine");
        }
        return SslProvider.OPENSSL;
      case "":
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
      default:
        throw new IllegalStateException(
            "-D" + ENGINE_PROPERTY + "=" + wanted + " names no TLS engine: use openssl or jdk");
    }
  }

  /**
   * The engine this process uses, chosen by {@value #ENGINE_PROPERTY} when first asked for.
   *
   * @throws IllegalStateException as {@link #engine(String)}
   */
  static SslProvider engine() {
    SslProvider chosen = engine;
    if (chosen == null) {
      chosen = engine(System.getProperty(ENGINE_PROPERTY, ""));
      engine = chosen;
    }
    return chosen;
  }

  /** The name of the TLS engine in use: {@code openssl} or {@code jdk}. */
  public static String engineName() {
    return engine() == SslProvider.JDK ? "jdk" : "openssl";
  }

  /**
   * Reads and checks the files {@code options} names.
   *
   * @throws IllegalArgumentException naming the file and what to do when a file is missing,
   *     unreadable or not PEM, a key does not belong to its certificate, or the certificate is not
   *     valid now; or saying what to use when {@value #ENGINE_PROPERTY} names no engine that loads
   */
  public static TlsContexts load(TlsOptions options) {
    SslProvider provider;
    try {
      provider = engine();
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    try {
      return new TlsContexts(new ReloadingTlsMaterial(options), provider);
    } catch (SSLException e) {
      throw new IllegalArgumentException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  /**
   * The subject of this party's certificate as the parties it connects to name it (their principal
   * for it), or null without a certificate.
   */
  public String subject() {
    return material.current().subject();
  }

  /** The options these contexts were loaded from. */
  public TlsOptions options() {
    return material.options();
  }

  /** True when this party has a certificate, so it can accept TLS connections. */
  public boolean canServe() {
    return server != null;
  }

  /**
   * One line saying what TLS does here, for a node's ready line: the certificate's subject and that
   * client certificates are required.
   */
  public String describe() {
    TlsMaterial m = material.current();
    return m.subject() == null
        ? "TLS (" + engineName() + " engine), no certificate of its own"
        : "TLS (" + engineName() + " engine) as " + m.subject() + ", client certificates required";
  }

  /**
   * A handler that runs TLS as the accepting end; the first handler of a channel's pipeline. With
   * {@code certificateOptional} (a node that accepts bearer tokens) a client may connect without a
   * certificate; one it presents is still checked against the trusted authorities.
   */
  public SslHandler serverHandler(ByteBufAllocator alloc, boolean certificateOptional) {
    if (server == null) {
      throw new IllegalStateException("a TLS server needs a certificate and key (--tls-cert)");
    }
    return (certificateOptional ? serverCertificateOptional : server).newHandler(alloc);
  }

  /**
   * A handler that runs TLS as the connecting end, towards {@code peer}, whose certificate must
   * name {@code peer}'s host.
   */
  public SslHandler clientHandler(ByteBufAllocator alloc, Endpoint peer) {
    SslHandler handler = client.newHandler(alloc, peer.host(), peer.port());
    SSLEngine engine = handler.engine();
    SSLParameters checks = engine.getSSLParameters();
    checks.setEndpointIdentificationAlgorithm("HTTPS");
    engine.setSSLParameters(checks);
    return handler;
  }

  /**
   * A JDK context with the same material and reloading, for an HTTPS server; its users require
   * client certificates themselves ({@code SSLParameters.setNeedClientAuth}).
   */
  public SSLContext jdkContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          new KeyManager[] {material.keyManager()},
          new TrustManager[] {material.trustManager()},
          null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM offers no TLS context: " + e.getMessage(), e);
    }
  }
}
