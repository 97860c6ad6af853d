package io.vcorfu.server.access;

import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster's grants in ZooKeeper: one znode, {@code /vcorfu/<cluster>/acl}, beside the layout,
 * holding the {@link AccessList} JSON; no znode: no grants. Changed only by compare-and-set at the
 * znode's version ({@link #update}), so two administrators changing grants at once both land, one
 * after the other, and the znode's version numbers the grants. Every node of a cluster run with
 * {@code --authorization} keeps a copy current by a watch ({@link #watch}); until the copy has
 * loaded it holds no grants (only nodes are served), and a znode that does not parse keeps the
 * grants before it. Created with the cluster's ZooKeeper identity when it has one, like the layout.
 */
public final class AclZnode implements Supplier<AccessList>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AclZnode.class);

  private static final byte[] NONE = new byte[0];

  private final CuratorCache cache;
  private final String path;
  private volatile byte[] lastBytes;
  private volatile AccessList last = AccessList.EMPTY;

  private AclZnode(CuratorCache cache, String path) {
    this.cache = cache;
    this.path = path;
  }

  /** The znode of {@code cluster}'s grants. */
  public static String path(String cluster) {
    return "/vcorfu/" + cluster + "/acl";
  }

  /** {@code cluster}'s grants now. */
  public static AccessList read(CuratorFramework zk, String cluster) throws Exception {
    try {
      return AccessList.fromJson(zk.getData().forPath(path(cluster)));
    } catch (KeeperException.NoNodeException e) {
      return AccessList.EMPTY;
    }
  }

  /**
   * Replaces {@code cluster}'s grants with {@code change} of them, by compare-and-set (read again
   * and retried when another change landed in between); returns the grants written.
   */
  public static AccessList update(
      CuratorFramework zk, String cluster, UnaryOperator<AccessList> change) throws Exception {
    String p = path(cluster);
    while (true) {
      Stat stat = new Stat();
      AccessList now;
      try {
        now = AccessList.fromJson(zk.getData().storingStatIn(stat).forPath(p));
      } catch (KeeperException.NoNodeException e) {
        AccessList next = change.apply(AccessList.EMPTY);
        try {
          zk.create().creatingParentsIfNeeded().forPath(p, next.toJson());
          return next;
        } catch (KeeperException.NodeExistsException raced) {
          continue;
        }
      }
      AccessList next = change.apply(now);
      try {
        zk.setData().withVersion(stat.getVersion()).forPath(p, next.toJson());
        return next;
      } catch (KeeperException.BadVersionException | KeeperException.NoNodeException raced) {
        // another change landed first: apply ours to it
      }
    }
  }

  /** A copy of {@code cluster}'s grants kept current by a ZooKeeper watch. */
  public static AclZnode watch(CuratorFramework zk, String cluster) {
    String p = path(cluster);
    CuratorCache cache = CuratorCache.build(zk, p, CuratorCache.Options.SINGLE_NODE_CACHE);
    cache.start();
    return new AclZnode(cache, p);
  }

  /** The grants as last seen (none before the first reading, or without a znode). */
  @Override
  public AccessList get() {
    ChildData d = cache.get(path).orElse(null);
    byte[] bytes = d == null || d.getData() == null ? NONE : d.getData();
    if (bytes == lastBytes) {
      return last;
    }
    synchronized (this) {
      if (bytes != lastBytes) {
        try {
          last = AccessList.fromJson(bytes);
        } catch (IllegalArgumentException e) {
          LOG.warn(
              "the grants in {} are not valid; keeping the grants before: {}",
              path,
              e.getMessage());
        }
        lastBytes = bytes;
      }
    }
    return last;
  }

  @Override
  public void close() {
    cache.close();
  }
}
