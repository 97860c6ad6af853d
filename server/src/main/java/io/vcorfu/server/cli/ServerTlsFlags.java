package io.vcorfu.server.cli;

import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TlsContexts;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --tls-cert}, {@code --tls-key} and {@code --tls-ca} of {@code vcorfu server}: the node's
 * TLS, all three or none (plaintext). Unlike a client's ({@link TlsFlags}), a node's options are
 * never taken from the environment, where a client's certificate may be set.
 */
final class ServerTlsFlags {
  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      description =
          "Serve over TLS with this certificate (PEM, the node's own first, then any"
              + " intermediates); needs --tls-key and --tls-ca. The node also presents it to the"
              + " nodes it calls. Re-read when the file changes.")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      description = "The private key of --tls-cert (PEM, unencrypted PKCS#8).")
  Path tlsKey;

  @Option(
      names = "--tls-ca",
      paramLabel = "FILE",
      description =
          "The certificate authorities (PEM) whose certificates the node accepts: every client,"
              + " node and HTTP caller must present one (mutual TLS), and the nodes it calls must"
              + " serve one. Without the three --tls-* options the node serves plaintext, with no"
              + " encryption and no authentication.")
  Path tlsCa;

  @Option(
      names = "--plaintext",
      description =
          "Serve a cluster node (--zookeeper) without TLS: no encryption, no authentication,"
              + " anyone who reaches its port is served, node-to-node requests included. A cluster"
              + " node needs either this or the three --tls-* options; a single node serves"
              + " plaintext without it.")
  boolean plaintext;

  /**
   * The node's TLS, its files checked, or null when no option was given (plaintext).
   *
   * @throws IllegalArgumentException naming what to do when only some options are given or a file
   *     cannot be used
   */
  TlsOptions options() {
    boolean none = tlsCert == null && tlsKey == null && tlsCa == null;
    if (plaintext && !none) {
      throw new IllegalArgumentException(
          "--plaintext and the --tls-* options exclude each other: give the three --tls-* options"
              + " to serve TLS, or --plaintext alone");
    }
    if (none) {
      return null;
    }
    if (tlsCert == null || tlsKey == null || tlsCa == null) {
      throw new IllegalArgumentException(
          "TLS needs --tls-cert, --tls-key and --tls-ca together (the node's certificate, its key,"
              + " and the CA its clients and peers are signed by)");
    }
    TlsOptions tls = new TlsOptions(tlsCa, tlsCert, tlsKey);
    TlsContexts.load(tls);
    return tls;
  }
}
