package io.vcorfu.server.cli;

import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TlsContexts;
import io.vcorfu.server.access.AccessConfig;
import io.vcorfu.server.access.AclFile;
import io.vcorfu.server.access.TokenFile;
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

  @Option(
      names = "--acl",
      paramLabel = "FILE",
      description =
          "Authorize every request of a single node by the grants in this file (written by"
              + " `vcorfu acl grant --file FILE`; re-read when it changes): a caller may do only"
              + " what a grant to its certificate's subject allows. Needs TLS.")
  Path acl;

  @Option(
      names = "--tokens",
      paramLabel = "FILE",
      description =
          "Also accept clients without a certificate that present a bearer token whose hash is in"
              + " this file (written by `vcorfu token create --tokens FILE --name NAME`; re-read"
              + " when it changes); such a client's principal is token:NAME. Needs TLS.")
  Path tokens;

  @Option(
      names = "--authorization",
      description =
          "Authorize every request of a cluster node by the cluster's grants in ZooKeeper"
              + " (`vcorfu acl grant --zookeeper ...`): a caller may do only what a grant to its"
              + " certificate's subject allows; other nodes need the node permission. Needs TLS.")
  boolean authorization;

  /**
   * How the node authorizes requests, or null when it does not.
   *
   * @param tls the node's TLS ({@link #options}), null for plaintext
   * @param cluster true for a cluster node
   * @throws IllegalArgumentException naming what to do when the options do not fit together or the
   *     grants file cannot be used
   */
  AccessConfig access(TlsOptions tls, boolean cluster) {
    if (acl == null && !authorization) {
      return null;
    }
    String flag = acl != null ? "--acl" : "--authorization";
    if (tls == null) {
      throw new IllegalArgumentException(
          flag
              + " needs TLS (a caller's principal is the subject of its certificate): give"
              + " --tls-cert, --tls-key and --tls-ca");
    }
    if (cluster && acl != null) {
      throw new IllegalArgumentException(
          "a cluster node takes its grants from ZooKeeper: give --authorization, not --acl, and"
              + " set grants with `vcorfu acl grant --zookeeper ZK --cluster NAME ...`");
    }
    if (!cluster && authorization) {
      throw new IllegalArgumentException(
          "--authorization is for a cluster node (--zookeeper); a single node takes its grants"
              + " from --acl FILE");
    }
    if (acl != null) {
      AclFile.open(acl);
    }
    return new AccessConfig(acl, TlsContexts.load(tls).subject());
  }

  /**
   * The bearer tokens the node accepts, or null when {@code --tokens} is not given.
   *
   * @param tls the node's TLS ({@link #options}), null for plaintext
   * @throws IllegalArgumentException naming what to do without TLS or when the file cannot be used
   */
  TokenFile tokens(TlsOptions tls) {
    if (tokens == null) {
      return null;
    }
    if (tls == null) {
      throw new IllegalArgumentException(
          "--tokens needs TLS (a token is never read in plaintext): give --tls-cert, --tls-key and"
              + " --tls-ca");
    }
    return TokenFile.open(tokens);
  }

  /** How the node secures its port, for its ready line. */
  String describe(TlsContexts tls, AccessConfig access) {
    if (tls == null) {
      return "plaintext: no TLS, anyone who reaches the port is served"
          + (plaintext ? " (--plaintext)" : "");
    }
    return tls.describe()
        + (tokens == null ? "" : " or bearer tokens from " + tokens)
        + (access == null
            ? ", no authorization"
            : access.aclFile() != null
                ? ", requests authorized by the grants in " + access.aclFile()
                : ", requests authorized by the cluster's grants in ZooKeeper");
  }

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
