package io.vcorfu.server.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.ClusterRetention;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster's retention in ZooKeeper: one znode, {@code /vcorfu/<cluster>/retention}, beside the
 * layout, holding {@code {"retainVersions": N, "retainTimeMs": M}} (either may be missing: not
 * set). No znode: no cluster retention. Written by {@code vcorfu cluster init/retention}; every
 * node keeps a watched copy ({@link #watch}) that its sequencer announces to the runtimes
 * registering their snapshots, so a change reaches every runtime within a second or two, without a
 * new epoch.
 *
 * <p>Retention only ever decides how much history runtimes keep; a change never makes a trim pass a
 * registered snapshot, so a copy that lags (or a cluster whose ZooKeeper is away) is safe.
 */
public final class RetentionZnode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionZnode.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CuratorCache cache;
  private final String path;

  private RetentionZnode(CuratorCache cache, String path) {
    this.cache = cache;
    this.path = path;
  }

  /** The znode of {@code cluster}'s retention. */
  public static String path(String cluster) {
    return "/vcorfu/" + cluster + "/retention";
  }

  /** {@code cluster}'s retention now ({@link ClusterRetention#NONE} without a znode). */
  public static ClusterRetention read(CuratorFramework zk, String cluster) throws Exception {
    try {
      return decode(zk.getData().forPath(path(cluster)));
    } catch (KeeperException.NoNodeException e) {
      return ClusterRetention.NONE;
    }
  }

  /** Sets {@code cluster}'s retention ({@link ClusterRetention#NONE} removes it). */
  public static void write(CuratorFramework zk, String cluster, ClusterRetention r)
      throws Exception {
    String p = path(cluster);
    if (!r.isSet()) {
      try {
        zk.delete().forPath(p);
      } catch (KeeperException.NoNodeException e) {
        // not set: nothing to remove
      }
      return;
    }
    byte[] bytes = encode(r);
    try {
      zk.setData().forPath(p, bytes);
    } catch (KeeperException.NoNodeException e) {
      try {
        zk.create().creatingParentsIfNeeded().forPath(p, bytes);
      } catch (KeeperException.NodeExistsException raced) {
        zk.setData().forPath(p, bytes);
      }
    }
  }

  /** A copy of {@code cluster}'s retention kept current by a ZooKeeper watch. */
  public static RetentionZnode watch(CuratorFramework zk, String cluster) {
    String p = path(cluster);
    CuratorCache cache = CuratorCache.build(zk, p, CuratorCache.Options.SINGLE_NODE_CACHE);
    cache.start();
    return new RetentionZnode(cache, p);
  }

  /**
   * The retention as last seen ({@link ClusterRetention#NONE} without one, or an unreadable one).
   */
  public ClusterRetention current() {
    ChildData d = cache.get(path).orElse(null);
    if (d == null || d.getData() == null) {
      return ClusterRetention.NONE;
    }
    try {
      return decode(d.getData());
    } catch (IOException | IllegalArgumentException e) {
      LOG.warn("the retention in {} is not valid and is ignored: {}", path, e.getMessage());
      return ClusterRetention.NONE;
    }
  }

  static byte[] encode(ClusterRetention r) throws IOException {
    ObjectNode o = JSON.createObjectNode();
    if (r.retainVersions() >= 0) {
      o.put("retainVersions", r.retainVersions());
    }
    if (r.retainTime() != null) {
      o.put("retainTimeMs", r.retainTime().toMillis());
    }
    return JSON.writeValueAsBytes(o);
  }

  static ClusterRetention decode(byte[] bytes) throws IOException {
    if (bytes == null || bytes.length == 0) {
      return ClusterRetention.NONE;
    }
    var o = JSON.readTree(new String(bytes, StandardCharsets.UTF_8));
    if (o == null || !o.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    long versions = o.has("retainVersions") ? o.get("retainVersions").asLong(-1) : -1;
    long timeMs = o.has("retainTimeMs") ? o.get("retainTimeMs").asLong(-1) : -1;
    return new ClusterRetention(
        versions < 0 ? -1 : versions, timeMs < 0 ? null : Duration.ofMillis(timeMs));
  }

  @Override
  public void close() {
    cache.close();
  }
}
