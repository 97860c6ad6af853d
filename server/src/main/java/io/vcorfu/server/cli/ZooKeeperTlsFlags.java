package io.vcorfu.server.cli;

import io.vcorfu.layout.ZkTls;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --zookeeper-tls-ca}, {@code --zookeeper-tls-cert} and {@code --zookeeper-tls-key}: TLS to
 * ZooKeeper for the node and the commands that use ZooKeeper, all three or none (plaintext).
 */
final class ZooKeeperTlsFlags {
  @Option(
      names = "--zookeeper-tls-ca",
      paramLabel = "FILE",
      description =
          "Speak TLS to ZooKeeper (its secureClientPort), trusting servers whose certificate this"
              + " CA file (PEM) signed; needs --zookeeper-tls-cert and --zookeeper-tls-key.")
  Path ca;

  @Option(
      names = "--zookeeper-tls-cert",
      paramLabel = "FILE",
      description = "The certificate (PEM) presented to ZooKeeper; may be the node's --tls-cert.")
  Path cert;

  @Option(
      names = "--zookeeper-tls-key",
      paramLabel = "FILE",
      description = "The private key of --zookeeper-tls-cert (PEM, unencrypted PKCS#8).")
  Path key;

  /** True when any of the three options is given. */
  boolean given() {
    return ca != null || cert != null || key != null;
  }

  /**
   * The TLS these options ask for, or null when none is given.
   *
   * @throws IllegalArgumentException when only some are given or a file cannot be read
   */
  ZkTls tls() {
    if (!given()) {
      return null;
    }
    if (ca == null || cert == null || key == null) {
      throw new IllegalArgumentException(
          "TLS to ZooKeeper needs --zookeeper-tls-ca, --zookeeper-tls-cert and --zookeeper-tls-key"
              + " together");
    }
    return new ZkTls(ca, cert, key);
  }
}
