package io.vcorfu.layout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * TLS to ZooKeeper: the certificate authorities that sign the ensemble's certificates ({@code ca})
 * and the certificate and key this party presents ({@code cert}, {@code key}), each a PEM file (the
 * key unencrypted PKCS#8), as the vcorfu nodes' own TLS files are. A client given these connects
 * only over TLS (ZooKeeper's {@code secureClientPort}), checks that the server's certificate chains
 * to {@code ca} and names the host dialled, and presents its certificate (which an ensemble with
 * {@code ssl.clientAuth=need} requires). The digest identity ({@link ZkAuth}) is separate and goes
 * on top: it decides who may read and change the cluster's znodes.
 *
 * @param ca PEM file of the trusted certificate authorities
 * @param cert PEM file of this party's certificate chain
 * @param key PEM file of the private key of {@code cert}
 */
public record ZkTls(Path ca, Path cert, Path key) {
  public ZkTls {
    Objects.requireNonNull(ca, "ca");
    Objects.requireNonNull(cert, "cert");
    Objects.requireNonNull(key, "key");
    for (Path p : new Path[] {ca, cert, key}) {
      if (!Files.isReadable(p)) {
        throw new IllegalArgumentException(
            "the ZooKeeper TLS file " + p + " does not exist or cannot be read");
      }
    }
  }

  /**
   * The key and certificate together in one PEM file, as ZooKeeper's PEM key store wants them
   * (client and server alike): a temporary file readable by this user only, removed at exit.
   *
   * @throws IllegalArgumentException naming a file that cannot be read
   */
  public Path identityPem() {
    try {
      Path both = Files.createTempFile("vcorfu-zk-identity", ".pem");
      Files.setPosixFilePermissions(both, PosixFilePermissions.fromString("rw-------"));
      Files.writeString(both, Files.readString(key) + "\n" + Files.readString(cert));
      both.toFile().deleteOnExit();
      return both;
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the ZooKeeper TLS files " + cert + " and " + key + ": " + e.getMessage(), e);
    }
  }

  /**
   * ZooKeeper client settings for this TLS: the secure Netty socket, the CA as trust store, and a
   * key store of the key and certificate together (ZooKeeper's PEM key store wants them in one
   * file, written to a temporary file readable by this user only and removed at exit).
   *
   * @throws IllegalArgumentException naming a file that cannot be read
   */
  public ZKClientConfig clientConfig() {
    Path both = identityPem();
    ZKClientConfig config = new ZKClientConfig();
    config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
    config.setProperty(
        ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
    config.setProperty("zookeeper.ssl.trustStore.location", ca.toString());
    config.setProperty("zookeeper.ssl.trustStore.type", "PEM");
    config.setProperty("zookeeper.ssl.keyStore.location", both.toString());
    config.setProperty("zookeeper.ssl.keyStore.type", "PEM");
    config.setProperty("zookeeper.ssl.hostnameVerification", "true");
    return config;
  }
}
