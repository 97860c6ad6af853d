package io.vcorfu.server.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;

/**
 * Who leads the manager election, as a watch of the election's znodes keeps it: the participant
 * whose znode has the lowest sequence number, which is how {@link LeaderLatch} decides. Every node
 * asks on each probe round whether the leader is gone; {@link LeaderLatch#getLeader()} answers with
 * two ZooKeeper reads, which made the election the largest part of an idle cluster's ZooKeeper
 * traffic. Here the answer comes from memory, kept current by ZooKeeper's change notifications.
 *
 * <p>It answers nothing ({@link Optional#empty()}) until the cache has loaded, or while the client
 * is not connected to ZooKeeper (what it holds may be stale then): the caller falls back to reading
 * the latch, which fails as it did before, so that a node cut off from ZooKeeper judges the leader
 * as it always did. Thread-safe.
 */
final class ElectionView implements AutoCloseable {
  /** ZooKeeper ends the name of every sequential znode with its sequence number, in ten digits. */
  private static final int SEQUENCE_DIGITS = 10;

  private final CuratorFramework zk;
  private final String path;
  private final CuratorCache cache;
  private volatile boolean loaded;

  ElectionView(CuratorFramework zk, String path) {
    this.zk = zk;
    this.path = path;
    this.cache = CuratorCache.build(zk, path);
    cache
        .listenable()
        .addListener(CuratorCacheListener.builder().forInitialized(this::load).build());
    cache.start();
  }

  private void load() {
    loaded = true;
  }

  /** The leading participant's id ({@code host:port#run}); empty when this view cannot tell. */
  Optional<String> leader() {
    if (!loaded || !zk.getZookeeperClient().isConnected()) {
      return Optional.empty();
    }
    String prefix = path + "/";
    ChildData first = null;
    long lowest = Long.MAX_VALUE;
    for (ChildData d : (Iterable<ChildData>) cache.stream()::iterator) {
      String p = d.getPath();
      if (!p.startsWith(prefix) || p.indexOf('/', prefix.length()) >= 0) {
        continue;
      }
      long sequence = sequence(p);
      if (sequence >= 0 && sequence < lowest && d.getData() != null) {
        lowest = sequence;
        first = d;
      }
    }
    return first == null
        ? Optional.empty()
        : Optional.of(new String(first.getData(), StandardCharsets.UTF_8));
  }

  /** The sequence number ending {@code path}, or -1 when it does not end in one. */
  static long sequence(String path) {
    if (path.length() < SEQUENCE_DIGITS) {
      return -1;
    }
    String digits = path.substring(path.length() - SEQUENCE_DIGITS);
    for (int i = 0; i < digits.length(); i++) {
      if (!Character.isDigit(digits.charAt(i))) {
        return -1;
      }
    }
    return Long.parseLong(digits);
  }

  @Override
  public void close() {
    cache.close();
  }
}
