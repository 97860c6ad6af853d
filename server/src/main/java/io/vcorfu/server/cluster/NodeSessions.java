package io.vcorfu.server.cluster;

import io.vcorfu.protocol.Endpoint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which nodes of a cluster hold a ZooKeeper session: every node keeps an ephemeral znode {@code
 * /vcorfu/<cluster>/sessions/<host:port>#<session id>} in each session its client opens (made when
 * the client connects, and again in every new session after a lost one). ZooKeeper deletes it when
 * the session ends: at once when the node closes its client, a session timeout after ZooKeeper last
 * heard the node when it crashed, was killed, paused or lost ZooKeeper. The manager's second
 * witness that a silent node is down (see {@link ClusterManager}): silence alone may be the
 * manager's own isolation; silence and an ended session are not.
 *
 * <p>The session id in the name keeps each session's znode apart: a restarted node's from its
 * previous run's (which lives on until that run's session expires), a new session's from the one it
 * replaced.
 */
final class NodeSessions implements ConnectionStateListener, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeSessions.class);

  private final CuratorFramework client;
  private final String cluster;
  private final Endpoint self;
  private volatile boolean closed;

  private NodeSessions(CuratorFramework client, String cluster, Endpoint self) {
    this.client = client;
    this.cluster = cluster;
    this.self = self;
  }

  private static String directory(String cluster) {
    return "/vcorfu/" + cluster + "/sessions";
  }

  /**
   * Starts keeping {@code self}'s session znode of {@code cluster} in each session of {@code
   * client}; returns at once (the znode is made once ZooKeeper answers). Closing the result stops
   * that; the znode itself ends with the session (when the client closes).
   */
  static AutoCloseable register(CuratorFramework client, String cluster, Endpoint self) {
    NodeSessions keeper = new NodeSessions(client, cluster, self);
    client.getConnectionStateListenable().addListener(keeper);
    if (client.getZookeeperClient().isConnected()) {
      keeper.make();
    }
    return keeper;
  }

  @Override
  public void stateChanged(CuratorFramework c, ConnectionState state) {
    if (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) {
      make();
    }
  }

  /** Makes the znode of the current session (already there: nothing to do). */
  private void make() {
    if (closed) {
      return;
    }
    try {
      long session = client.getZookeeperClient().getZooKeeper().getSessionId();
      String path = directory(cluster) + "/" + self + "#" + Long.toHexString(session);
      client
          .create()
          .creatingParentsIfNeeded()
          .withMode(CreateMode.EPHEMERAL)
          .inBackground(
              (c, made) -> {
                int rc = made.getResultCode();
                if (rc != KeeperException.Code.OK.intValue()
                    && rc != KeeperException.Code.NODEEXISTS.intValue()) {
                  // Tried again when the client next connects.
                  LOG.warn(
                      "node {}: could not record its ZooKeeper session at {}: {}",
                      self,
                      path,
                      KeeperException.Code.get(rc));
                }
              })
          .forPath(path, self.toString().getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      LOG.warn("node {}: could not record its ZooKeeper session: {}", self, e.toString());
    }
  }

  @Override
  public void close() {
    closed = true;
    client.getConnectionStateListenable().removeListener(this);
  }

  /**
   * The nodes of {@code cluster} that hold a session now, as ZooKeeper's leader knows it (the
   * server {@code client} talks to is synced first, so a session that ended before the call is not
   * listed). Fails when ZooKeeper does not answer within {@code timeout}.
   */
  static Set<Endpoint> live(CuratorFramework client, String cluster, Duration timeout)
      throws Exception {
    String dir = directory(cluster);
    CompletableFuture<List<String>> listed = new CompletableFuture<>();
    client
        .sync()
        .inBackground(
            (c, synced) -> {
              if (synced.getResultCode() != KeeperException.Code.OK.intValue()) {
                listed.completeExceptionally(failure(synced.getResultCode(), dir));
                return;
              }
              try {
                c.getChildren().inBackground((c2, read) -> listed(listed, read, dir)).forPath(dir);
              } catch (Exception e) {
                listed.completeExceptionally(e); // closed meanwhile
              }
            })
        .forPath(dir);
    List<String> children = listed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    Set<Endpoint> live = new HashSet<>();
    for (String child : children) {
      int run = child.lastIndexOf('#');
      try {
        live.add(Endpoint.parse(run < 0 ? child : child.substring(0, run)));
      } catch (IllegalArgumentException e) {
        // not a node's znode
      }
    }
    return live;
  }

  /** Completes {@code listed} with what the read of {@code dir}'s children found. */
  private static void listed(
      CompletableFuture<List<String>> listed, CuratorEvent read, String dir) {
    int rc = read.getResultCode();
    if (rc == KeeperException.Code.OK.intValue()) {
      listed.complete(read.getChildren());
    } else if (rc == KeeperException.Code.NONODE.intValue()) {
      listed.complete(List.of());
    } else {
      listed.completeExceptionally(failure(rc, dir));
    }
  }

  private static KeeperException failure(int resultCode, String path) {
    return KeeperException.create(KeeperException.Code.get(resultCode), path);
  }
}
