package io.vcorfu.layout;

import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.data.ACL;

/** The ZooKeeper clients a {@link ZkLayoutStore} makes for itself. */
final class ZkClients {
  private static final int RETRY_BASE_SLEEP_MS = 100;
  private static final int RETRY_MAX_SLEEP_MS = 1000;
  private static final int READ_RETRIES = 3;

  private ZkClients() {}

  /**
   * A started client of {@code connectString}: session and connection timeout {@code timeoutMs},
   * reads retried up to 3 times with bounded back-off, connection changes reported in the log; as
   * the identity {@code auth} when not null (the session authenticates with it and creates every
   * znode with its ACL); over TLS when {@code tls} is not null.
   */
  static CuratorFramework start(String connectString, int timeoutMs, ZkAuth auth, ZkTls tls) {
    CuratorFrameworkFactory.Builder builder =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs(timeoutMs)
            .connectionTimeoutMs(timeoutMs)
            .retryPolicy(
                new BoundedExponentialBackoffRetry(
                    RETRY_BASE_SLEEP_MS, RETRY_MAX_SLEEP_MS, READ_RETRIES));
    if (auth != null) {
      List<ACL> acl = auth.acl();
      builder
          .authorization("digest", auth.credentials())
          .aclProvider(
              new ACLProvider() {
                @Override
                public List<ACL> getDefaultAcl() {
                  return acl;
                }

                @Override
                public List<ACL> getAclForPath(String path) {
                  return acl;
                }
              });
    }
    if (tls != null) {
      builder.zkClientConfig(tls.clientConfig());
    }
    CuratorFramework client = builder.build();
    client.getConnectionStateListenable().addListener(new ZkConnectionReport(connectString));
    client.start();
    return client;
  }
}
