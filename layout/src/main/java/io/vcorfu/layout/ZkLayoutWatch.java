package io.vcorfu.layout;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link ZkLayoutStore#watch}: a Curator {@link CuratorCache} on the layout znode whose events
 * are handed, in order, to one thread of the watch's own, which decodes them and calls the listener
 * with versions that only grow.
 */
final class ZkLayoutWatch implements ZkLayoutStore.Watch {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLayoutWatch.class);

  private final String path;
  private final BiFunction<byte[], Integer, Versioned<Layout>> decode;
  private final Consumer<Versioned<Layout>> listener;
  private final Consumer<ZkLayoutWatch> onClose;
  private final ExecutorService events;
  private final CuratorCache cache;
  private volatile boolean closed;

  /** The newest znode version handed on or skipped; -1 before the first. Confined to events. */
  private long lastVersion = -1;

  ZkLayoutWatch(
      CuratorFramework zk,
      String cluster,
      String path,
      BiFunction<byte[], Integer, Versioned<Layout>> decode,
      Consumer<Versioned<Layout>> listener,
      Consumer<ZkLayoutWatch> onClose) {
    this.path = path;
    this.decode = decode;
    this.listener = listener;
    this.onClose = onClose;
    this.events =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "zk-layout-watch-" + cluster);
              t.setDaemon(true);
              return t;
            });
    this.cache = CuratorCache.build(zk, path, CuratorCache.Options.SINGLE_NODE_CACHE);
  }

  void start() {
    cache
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forCreatesAndChanges((before, node) -> onValue(node))
                .forDeletes(node -> lastVersion = -1)
                .build(),
            events);
    cache.start();
  }

  private void onValue(ChildData node) {
    if (closed || node == null || node.getStat() == null) {
      return;
    }
    int version = node.getStat().getVersion();
    if (version <= lastVersion) {
      return;
    }
    lastVersion = version;
    Versioned<Layout> value;
    try {
      value = decode.apply(node.getData(), version);
    } catch (LayoutException e) {
      LOG.warn("Skipping version {} of the layout znode {}: {}", version, path, e.getMessage());
      return;
    }
    try {
      listener.accept(value);
    } catch (RuntimeException e) {
      LOG.warn(
          "A layout listener failed on version {} of {}; the watch goes on.", version, path, e);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    cache.close();
    events.shutdown();
    onClose.accept(this);
  }
}
