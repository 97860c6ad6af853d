package io.vcorfu.protocol.netty;

import io.netty.handler.ssl.OpenSslCertificateException;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.internal.tcnative.CertificateVerifier;
import io.vcorfu.protocol.TlsOptions;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A party's TLS material, read again when its files change: every handshake first compares the
 * files' modification times and sizes with those of the last reading and, when they differ, reads
 * them again. New handshakes use the new material; established connections keep what they
 * negotiated. A reading that fails (a file half written, a key that does not match its certificate)
 * keeps the previous material, logs why once, and is tried again when the files change again.
 *
 * <p>{@link #keyManager()} and {@link #trustManager()} serve the material to the JDK's TLS engine.
 * A handshake picks its certificate and key by an alias naming the reading ({@code gen-N}), so a
 * reload in the middle of a handshake never pairs one reading's certificate with another's key.
 * Thread-safe.
 */
final class ReloadingTlsMaterial {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingTlsMaterial.class);

  private final TlsOptions options;

  /** The readings a handshake may still refer to: the current one and the one before. */
  private final ConcurrentHashMap<String, TlsMaterial> byAlias = new ConcurrentHashMap<>();

  private volatile TlsMaterial current;
  private volatile java.util.List<String> failedStamp;

  /**
   * Reads {@code options}' files.
   *
   * @throws IllegalArgumentException as {@link TlsMaterial#load} does
   */
  ReloadingTlsMaterial(TlsOptions options) {
    this.options = options;
    this.current = TlsMaterial.load(options, 1);
    byAlias.put(alias(current), current);
  }

  TlsOptions options() {
    return options;
  }

  /** The material to use now, read again first if the files changed. */
  TlsMaterial current() {
    TlsMaterial now = current;
    java.util.List<String> stamp = TlsMaterial.stampOf(options);
    if (stamp.equals(now.stamp()) || stamp.equals(failedStamp)) {
      return now;
    }
    synchronized (this) {
      now = current;
      if (stamp.equals(now.stamp()) || stamp.equals(failedStamp)) {
        return now;
      }
      try {
        TlsMaterial fresh = TlsMaterial.load(options, now.generation() + 1);
        byAlias.put(alias(fresh), fresh);
        byAlias.remove(alias(now.generation() - 1));
        current = fresh;
        failedStamp = null;
        LOG.info(
            "TLS files reloaded: certificate {}, valid until {}",
            fresh.subject() == null ? "(none)" : fresh.subject(),
            fresh.chain() == null ? "-" : fresh.chain()[0].getNotAfter().toInstant());
        return fresh;
      } catch (IllegalArgumentException e) {
        failedStamp = stamp;
        LOG.warn(
            "TLS files changed but cannot be used, keeping the previous ones: {}", e.getMessage());
        return now;
      }
    }
  }

  private static String alias(TlsMaterial m) {
    return alias(m.generation());
  }

  private static String alias(long generation) {
    return "gen-" + generation;
  }

  X509ExtendedKeyManager keyManager() {
    return new KeyManager();
  }

  X509ExtendedTrustManager trustManager() {
    return new TrustManager();
  }

  /** Serves the current certificate and key under the alias of their reading. */
  private final class KeyManager extends X509ExtendedKeyManager {
    private String aliasFor(String keyType) {
      TlsMaterial m = current();
      return m.key() != null && m.key().getAlgorithm().equals(keyType) ? alias(m) : null;
    }

    private String aliasFor(String[] keyTypes) {
      if (keyTypes == null) {
        return null;
      }
      for (String t : keyTypes) {
        String a = aliasFor(t);
        if (a != null) {
          return a;
        }
      }
      return null;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      return aliasFor(keyType);
    }

    @Override
    public String chooseEngineClientAlias(
        String[] keyTypes, Principal[] issuers, SSLEngine engine) {
      return aliasFor(keyTypes);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return aliasFor(keyType);
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
      return aliasFor(keyTypes);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      String a = aliasFor(keyType);
      return a == null ? null : new String[] {a};
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return getServerAliases(keyType, issuers);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      TlsMaterial m = alias == null ? null : byAlias.get(alias);
      return m == null || m.chain() == null ? null : m.chain().clone();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      TlsMaterial m = alias == null ? null : byAlias.get(alias);
      return m == null ? null : m.key();
    }
  }

  /**
   * {@code e} as the engine reports it best to the other end. OpenSSL's engine turns a refusal it
   * cannot classify into an "internal error" alert; a chain to no trusted authority is sent as
   * "unknown CA" and a certificate that does not name the host dialled as a host-name mismatch, as
   * the JDK's engine names them, so the other end can say what to fix.
   */
  private static CertificateException forEngine(CertificateException e, SSLEngine engine) {
    if (!(engine instanceof ReferenceCountedOpenSslEngine)) {
      return e;
    }
    int code;
    if (causedBy(e, CertPathBuilderException.class)) {
      code = CertificateVerifier.X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY;
    } else if (String.valueOf(e.getMessage()).startsWith("No subject alternative")) {
      code = CertificateVerifier.X509_V_ERR_HOSTNAME_MISMATCH;
    } else {
      return e;
    }
    return new OpenSslCertificateException(e.getMessage(), e, code);
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  /** Checks peers against the current trusted authorities. */
  private final class TrustManager extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      current().trust().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      current().trust().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      try {
        current().trust().checkClientTrusted(chain, authType, engine);
      } catch (CertificateException e) {
        throw forEngine(e, engine);
      }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      try {
        current().trust().checkServerTrusted(chain, authType, engine);
      } catch (CertificateException e) {
        throw forEngine(e, engine);
      }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      current().trust().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      current().trust().checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return current().trust().getAcceptedIssuers();
    }
  }
}
