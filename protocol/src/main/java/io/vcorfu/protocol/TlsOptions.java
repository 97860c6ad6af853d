package io.vcorfu.protocol;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Where a party's TLS material lives: the certificate authorities it trusts ({@code ca}), and
 * optionally its own certificate chain and private key ({@code cert}, {@code key}), each a PEM file
 * (the key unencrypted PKCS#8, {@code BEGIN PRIVATE KEY}).
 *
 * <p>A node needs all three: it serves with its certificate, requires every connecting party
 * (clients, other nodes, HTTP callers) to present a certificate signed by {@code ca}, and presents
 * its own certificate when it connects to other nodes. A client needs {@code ca} to check the
 * node's certificate, and a certificate of its own for a node that requires one (every node with
 * TLS does). The files are read again when they change, so rotating them needs no restart; this
 * value only names them.
 *
 * @param ca PEM file of the trusted certificate authorities (one or more certificates)
 * @param cert PEM file of this party's certificate chain, its own certificate first; null for a
 *     client without a certificate
 * @param key PEM file of the private key of {@code cert} (PKCS#8); null exactly when {@code cert}
 *     is
 */
public record TlsOptions(Path ca, Path cert, Path key) {
  /** The environment variable naming the trusted CA file when {@code --tls-ca} is not given. */
  public static final String CA_VARIABLE = "VCORFU_TLS_CA";

  /** The environment variable naming the certificate file when {@code --tls-cert} is not given. */
  public static final String CERT_VARIABLE = "VCORFU_TLS_CERT";

  /** The environment variable naming the key file when {@code --tls-key} is not given. */
  public static final String KEY_VARIABLE = "VCORFU_TLS_KEY";

  public TlsOptions {
    Objects.requireNonNull(ca, "ca: TLS needs the trusted certificate authorities (--tls-ca)");
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(
          "a TLS certificate and its key go together: give both --tls-cert and --tls-key, or"
              + " neither");
    }
  }

  /** A client that trusts {@code ca} and has no certificate of its own. */
  public static TlsOptions trusting(Path ca) {
    return new TlsOptions(ca, null, null);
  }

  /** These options with {@code cert} and its {@code key} as this party's identity. */
  public TlsOptions withIdentity(Path cert, Path key) {
    return new TlsOptions(ca, Objects.requireNonNull(cert), Objects.requireNonNull(key));
  }

  /** True when this party presents a certificate of its own. */
  public boolean hasIdentity() {
    return cert != null;
  }

  /**
   * The options given by flags ({@code ca}, {@code cert}, {@code key}, each null when not given),
   * each missing one taken from its environment variable ({@link #CA_VARIABLE}, ...); null when
   * neither names a CA file (plaintext).
   *
   * @throws IllegalArgumentException if a certificate or key is given without a CA file, or a
   *     certificate without its key
   */
  public static TlsOptions fromFlags(Path ca, Path cert, Path key, Map<String, String> env) {
    Path c = ca != null ? ca : pathOf(env.get(CA_VARIABLE));
    Path crt = cert != null ? cert : pathOf(env.get(CERT_VARIABLE));
    Path k = key != null ? key : pathOf(env.get(KEY_VARIABLE));
    if (c == null) {
      if (crt != null || k != null) {
        throw new IllegalArgumentException(
            "a TLS certificate or key needs the certificate authority that signs the node's"
                + " certificate too: give --tls-ca FILE (or "
                + CA_VARIABLE
                + ")");
      }
      return null;
    }
    return new TlsOptions(c, crt, k);
  }

  private static Path pathOf(String value) {
    return value == null || value.isBlank() ? null : Path.of(value);
  }
}
