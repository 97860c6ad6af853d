package io.vcorfu.layout;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says, once per change, whether a {@link ZkLayoutStore}'s ZooKeeper client is connected: the
 * ZooKeeper client's and Curator's own logs repeat a stack trace per retry, and the node's logging
 * turns them off. Logs under {@link ZkLayoutStore}'s name, which the command line quiets.
 */
final class ZkConnectionReport implements ConnectionStateListener {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLayoutStore.class);
  private final String connectString;

  ZkConnectionReport(String connectString) {
    this.connectString = connectString;
  }

  @Override
  public void stateChanged(CuratorFramework client, ConnectionState state) {
    switch (state) {
      case CONNECTED, RECONNECTED -> LOG.info("connected to ZooKeeper at {}", connectString);
      case SUSPENDED ->
          LOG.warn(
              "ZooKeeper at {} does not answer; retrying (the node serves its current layout"
                  + " meanwhile)",
              connectString);
      case LOST ->
          LOG.warn("no ZooKeeper session at {} (unreachable or expired); retrying", connectString);
      default -> {}
    }
  }
}
