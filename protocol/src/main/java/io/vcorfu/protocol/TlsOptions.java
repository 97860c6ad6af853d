package io.vcorfu.protocol;

import java.io.IOException;
import java.nio.file.Files;
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
 *     <p>A client without a certificate may instead present a bearer token ({@code tokenFile}, a
 *     file holding the token on its first line) to a node that accepts tokens ({@code vcorfu server
 *     --tokens}): it is sent once per connection, inside TLS, before any request.
 * @param key PEM file of the private key of {@code cert} (PKCS#8); null exactly when {@code cert}
 *     is
 * @param tokenFile file holding this client's bearer token; null for none
 */
public record TlsOptions(Path ca, Path cert, Path key, Path tokenFile) {
  /** The environment variable naming the trusted CA file when {@code --tls-ca} is not given. */
  public static final String CA_VARIABLE = "VCORFU_TLS_CA";

  /** The environment variable naming the certificate file when {@code --tls-cert} is not given. */
  public static final String CERT_VARIABLE = "VCORFU_TLS_CERT";

  /** The environment variable naming the key file when {@code --tls-key} is not given. */
  public static final String KEY_VARIABLE = "VCORFU_TLS_KEY";

  /**
   * The environment variable naming the bearer token file when {@code --token-file} is not given.
   */
  public static final String TOKEN_VARIABLE = "VCORFU_TOKEN_FILE";

  public TlsOptions {
    Objects.requireNonNull(ca, "ca: TLS needs the trusted certificate authorities (--tls-ca)");
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(
          "a TLS certificate and its key go together: give both --tls-cert and --tls-key, or"
              + " neither");
    }
    if (cert != null && tokenFile != null) {
      throw new IllegalArgumentException(
          "a client presents either a certificate or a bearer token, not both: drop --tls-cert and"
              + " --tls-key, or --token-file");
    }
  }

  /** Options without a bearer token. */
  public TlsOptions(Path ca, Path cert, Path key) {
    this(ca, cert, key, null);
  }

  /** A client that trusts {@code ca} and has no certificate of its own. */
  public static TlsOptions trusting(Path ca) {
    return new TlsOptions(ca, null, null);
  }

  /** These options with {@code cert} and its {@code key} as this party's identity. */
  public TlsOptions withIdentity(Path cert, Path key) {
    return new TlsOptions(ca, Objects.requireNonNull(cert), Objects.requireNonNull(key), tokenFile);
  }

  /** These options presenting the bearer token held in {@code file} on every connection. */
  public TlsOptions withToken(Path file) {
    return new TlsOptions(ca, cert, key, Objects.requireNonNull(file));
  }

  /**
   * The bearer token held in {@link #tokenFile}: its first line, trimmed; null without a token
   * file. Read at every call, so a replaced file is used by the next connection.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read or holds no token
   */
  public String token() {
    if (tokenFile == null) {
      return null;
    }
    String text;
    try {
      text = Files.readString(tokenFile);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the bearer token file " + tokenFile + ": " + e.getMessage(), e);
    }
    String first = text.lines().findFirst().orElse("").strip();
    if (first.isEmpty()) {
      throw new IllegalArgumentException(
          "the bearer token file "
              + tokenFile
              + " holds no token: put the token `vcorfu token create` printed on its first line");
    }
    return first;
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
    return fromFlags(ca, cert, key, null, env);
  }

  /**
   * As {@link #fromFlags(Path, Path, Path, Map)} with a bearer token file ({@code tokenFile}, else
   * {@link #TOKEN_VARIABLE}).
   *
   * @throws IllegalArgumentException also if a token file is given without a CA file (a token is
   *     never sent in plaintext)
   */
  public static TlsOptions fromFlags(
      Path ca, Path cert, Path key, Path tokenFile, Map<String, String> env) {
    Path c = ca != null ? ca : pathOf(env.get(CA_VARIABLE));
    Path crt = cert != null ? cert : pathOf(env.get(CERT_VARIABLE));
    Path k = key != null ? key : pathOf(env.get(KEY_VARIABLE));
    Path t = tokenFile != null ? tokenFile : pathOf(env.get(TOKEN_VARIABLE));
    if (c == null && t != null) {
      throw new IllegalArgumentException(
          "a bearer token is sent only over TLS: give --tls-ca FILE (or "
              + CA_VARIABLE
              + "), the CA that signs the node's certificate");
    }
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
    return new TlsOptions(c, crt, k, t);
  }

  private static Path pathOf(String value) {
    return value == null || value.isBlank() ? null : Path.of(value);
  }
}
