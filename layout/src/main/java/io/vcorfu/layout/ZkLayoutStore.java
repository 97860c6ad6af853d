package io.vcorfu.layout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.imps.DefaultACLProvider;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * The cluster's agreed layout in ZooKeeper: one persistent znode, {@code /vcorfu/<cluster>/layout},
 * holding the layout's JSON document (UTF-8). The znode's version is the store version ({@link
 * Versioned#version()}): 0 when created, one more per update. The znode and its missing parents are
 * created persistent, with the open ACL, or, for a store connected with the cluster's identity
 * ({@link ZkAuth}), an ACL granting everything to that identity and nothing to anyone else.
 *
 * <p><b>Durability.</b> When a future completes successfully, its value is committed in ZooKeeper
 * (acknowledged by a quorum of the ensemble). A compare-and-set is sent exactly once, as one
 * conditional ZooKeeper write ({@code create}, or {@code setData} at the expected version), and is
 * never retried, by this store or by Curator: a retried conditional write could report a lost race
 * for a write that in fact committed. If its answer is lost (connection loss, session expiry,
 * timeout) it fails with {@link LayoutStoreUnavailableException} and its outcome is unknown: the
 * caller re-reads. Reads ({@link #get}, {@link #currentVersion}) may be retried by Curator under
 * the client's retry policy.
 *
 * <p><b>Threads.</b> Thread-safe. Futures complete on this store's own callback thread, never on
 * ZooKeeper's event thread: a dependent stage that blocks delays this store's later completions but
 * never ZooKeeper's session handling or watches (stages that block should use the {@code ...Async}
 * variants). Each {@link #watch} calls its listener on a thread of its own.
 *
 * <p>When ZooKeeper cannot be reached, calls fail with {@link LayoutStoreUnavailableException}
 * after about the client's connection timeout (times its retries, for reads); for {@link #connect}
 * that is the session timeout, with up to 3 retries.
 */
public final class ZkLayoutStore implements LayoutStore {
  private static final Pattern CLUSTER_NAME = Pattern.compile("[A-Za-z0-9._-]+");

  private final CuratorFramework client;

  /** {@link #client} without any namespace: every path here is absolute. */
  private final CuratorFramework zk;

  private final boolean ownsClient;

  /** The ACL of the znodes this store creates. */
  private final List<ACL> acl;

  private final String cluster;
  private final String path;
  private final String connectString;
  private final ZkFailures failures;
  private final ExecutorService callbacks;
  private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<ZkLayoutWatch> watches = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /**
   * The znode's bytes last decoded and what they decoded to: a read that finds the same bytes at
   * the same version (the manager reads the layout every probe round) skips parsing the JSON again.
   */
  private volatile Decoded lastDecoded;

  private record Decoded(byte[] data, Versioned<Layout> layout) {}

  /**
   * A store over {@code client}, which must be started; the store does not close it. Paths are
   * absolute whatever namespace the client has.
   */
  public ZkLayoutStore(CuratorFramework client, String cluster) {
    this(client, cluster, false, new DefaultACLProvider().getDefaultAcl(), false);
  }

  private ZkLayoutStore(
      CuratorFramework client,
      String cluster,
      boolean ownsClient,
      List<ACL> acl,
      boolean authenticated) {
    Objects.requireNonNull(client, "client");
    if (client.getState() != CuratorFrameworkState.STARTED) {
      throw new IllegalStateException(
          "The ZooKeeper client must be started before a layout store uses it; it is "
              + client.getState()
              + ".");
    }
    this.client = client;
    this.zk = client.usingNamespace(null);
    this.ownsClient = ownsClient;
    this.acl = acl;
    this.cluster = checkClusterName(cluster);
    this.path = "/vcorfu/" + cluster + "/layout";
    this.connectString = client.getZookeeperClient().getCurrentConnectionString();
    this.failures = new ZkFailures(connectString, authenticated);
    this.callbacks =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "zk-layout-store-" + cluster);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * A store with a ZooKeeper client of its own, closed with the store: session timeout and
   * connection timeout {@code sessionTimeout}, reads retried up to 3 times with bounded back-off.
   * Returns at once; the client connects in the background.
   *
   * @param connectString ZooKeeper's {@code host:port[,host:port...]}
   * @param cluster the cluster's name: letters, digits, {@code .}, {@code _} and {@code -}
   */
  public static ZkLayoutStore connect(
      String connectString, String cluster, Duration sessionTimeout) {
    return connect(connectString, cluster, sessionTimeout, null, null);
  }

  /**
   * {@link #connect(String, String, Duration)} as the cluster's ZooKeeper identity {@code auth}
   * (null: none): the session authenticates with it and every znode it creates is readable and
   * writable by that identity only; over TLS to ZooKeeper when {@code tls} is not null (see {@link
   * ZkTls}).
   */
  public static ZkLayoutStore connect(
      String connectString, String cluster, Duration sessionTimeout, ZkAuth auth, ZkTls tls) {
    Objects.requireNonNull(connectString, "connectString");
    checkClusterName(cluster);
    long ms = sessionTimeout.toMillis();
    if (ms <= 0 || ms > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "The ZooKeeper session timeout must be positive and below 2^31 ms, got "
              + sessionTimeout
              + ".");
    }
    CuratorFramework client = ZkClients.start(connectString, (int) ms, auth, tls);
    return new ZkLayoutStore(
        client,
        cluster,
        true,
        auth == null ? new DefaultACLProvider().getDefaultAcl() : auth.acl(),
        auth != null);
  }

  /** The znode holding the layout: {@code /vcorfu/<cluster>/layout}. */
  public String path() {
    return path;
  }

  /** The ZooKeeper client this store uses (the store's own one, for {@link #connect}). */
  public CuratorFramework client() {
    return client;
  }

  @Override
  public CompletableFuture<Versioned<Layout>> get() {
    CompletableFuture<Versioned<Layout>> f = newCall();
    String what = "read the layout at " + path;
    background(
        f,
        what,
        cb -> zk.getData().inBackground(cb).forPath(path),
        event -> {
          Code rc = Code.get(event.getResultCode());
          if (rc == Code.OK) {
            f.complete(decode(event.getData(), event.getStat().getVersion()));
          } else if (rc == Code.NONODE) {
            f.completeExceptionally(
                new LayoutNotFoundException("znode " + path + " in ZooKeeper at " + connectString));
          } else {
            f.completeExceptionally(failures.failure(KeeperException.create(rc, path), what));
          }
        });
    return f;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Fails with {@link LayoutStoreUnavailableException} when the answer was lost: the layout may
   * or may not have been stored then. {@code expectedVersion} must fit ZooKeeper's versions (an
   * {@code int}).
   */
  @Override
  public CompletableFuture<Versioned<Layout>> compareAndSet(long expectedVersion, Layout next) {
    Objects.requireNonNull(next, "next");
    CompletableFuture<Versioned<Layout>> f = newCall();
    if (expectedVersion < NO_VERSION || expectedVersion > Integer.MAX_VALUE) {
      f.completeExceptionally(
          new IllegalArgumentException(
              "The expected version must be NO_VERSION (-1) or a ZooKeeper version (0 to 2^31-1),"
                  + " got "
                  + expectedVersion
                  + "."));
      return f;
    }
    byte[] data = next.toJson().getBytes(StandardCharsets.UTF_8);
    if (expectedVersion == NO_VERSION) {
      create(f, next, data);
    } else {
      setData(f, (int) expectedVersion, next, data);
    }
    return f;
  }

  /**
   * The znode's version as of a linearizable read ({@code sync}, then {@code exists}): no older
   * than any version committed before this call was made. {@link #NO_VERSION} when there is no
   * layout yet. A node's layout lease is renewed with it.
   */
  public CompletableFuture<Long> currentVersion() {
    CompletableFuture<Long> f = newCall();
    String what = "read the version of " + path;
    background(
        f,
        what,
        cb -> zk.sync().inBackground(cb).forPath(path),
        synced -> {
          Code rc = Code.get(synced.getResultCode());
          if (rc != Code.OK) {
            f.completeExceptionally(failures.failure(KeeperException.create(rc, path), what));
            return;
          }
          background(
              f,
              what,
              cb -> zk.checkExists().inBackground(cb).forPath(path),
              exists -> f.complete(versionOf(exists, what)));
        });
    return f;
  }

  /**
   * Calls {@code listener} with the stored layout and then with every later one, on a thread of the
   * watch's own, one call at a time. Versions only grow from one call to the next: the watch may
   * skip versions when several change quickly (it always reaches the newest), but it never delivers
   * a version after a newer one (unless the znode is deleted and created again, which starts its
   * versions anew). A znode value that is not a valid layout is skipped with a warning in the log;
   * the watch goes on. An exception thrown by {@code listener} is logged and the watch goes on.
   *
   * <p>The watch ends when the returned handle or this store is closed.
   */
  public Watch watch(Consumer<Versioned<Layout>> listener) {
    Objects.requireNonNull(listener, "listener");
    checkOpen();
    ZkLayoutWatch w = new ZkLayoutWatch(zk, cluster, path, this::decode, listener, watches::remove);
    watches.add(w);
    w.start();
    return w;
  }

  /** Closes this store's watches and, if the store created it, its ZooKeeper client. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    watches.forEach(ZkLayoutWatch::close);
    callbacks.shutdown();
    inFlight.forEach(f -> f.completeExceptionally(closedException()));
    if (ownsClient) {
      client.close();
    }
  }

  /** A running {@link #watch}; {@link #close()} ends it (idempotent). */
  public interface Watch extends AutoCloseable {
    @Override
    void close();
  }

  private void create(CompletableFuture<Versioned<Layout>> f, Layout next, byte[] data) {
    String parent = path.substring(0, path.lastIndexOf('/'));
    String what = "create the layout at " + path;
    // The parents are created (idempotently, so Curator may retry it); the layout znode itself is
    // created once, through the raw handle, so that no retry can turn a lost answer into a
    // NodeExists for our own write.
    background(
        f,
        what,
        cb -> zk.create().creatingParentsIfNeeded().inBackground(cb).forPath(parent, new byte[0]),
        made -> {
          Code rc = Code.get(made.getResultCode());
          if (rc != Code.OK && rc != Code.NODEEXISTS) {
            f.completeExceptionally(failures.failure(KeeperException.create(rc, parent), what));
            return;
          }
          ZooKeeper handle = handle(f, what);
          if (handle == null) {
            return;
          }
          handle.create(
              path,
              data,
              acl,
              CreateMode.PERSISTENT,
              (code, p, ctx, name, stat) ->
                  onCallbackThread(
                      f,
                      () -> {
                        Code c = Code.get(code);
                        if (c == Code.OK) {
                          f.complete(new Versioned<>(next, stat.getVersion()));
                        } else if (c == Code.NODEEXISTS) {
                          lost(f, NO_VERSION);
                        } else {
                          f.completeExceptionally(
                              failures.casFailure(KeeperException.create(c, path), what));
                        }
                      }),
              null);
        });
  }

  private void setData(
      CompletableFuture<Versioned<Layout>> f, int expectedVersion, Layout next, byte[] data) {
    String what = "update the layout at " + path + " from version " + expectedVersion;
    ZooKeeper handle = handle(f, what);
    if (handle == null) {
      return;
    }
    handle.setData(
        path,
        data,
        expectedVersion,
        (code, p, ctx, stat) ->
            onCallbackThread(
                f,
                () -> {
                  Code c = Code.get(code);
                  if (c == Code.OK) {
                    f.complete(new Versioned<>(next, stat.getVersion()));
                  } else if (c == Code.BADVERSION) {
                    lost(f, expectedVersion);
                  } else if (c == Code.NONODE) {
                    f.completeExceptionally(
                        new LayoutVersionMismatchException(expectedVersion, NO_VERSION));
                  } else {
                    f.completeExceptionally(
                        failures.casFailure(KeeperException.create(c, path), what));
                  }
                }),
        null);
  }

  /**
   * Fails {@code f}, a compare-and-set that ZooKeeper refused because the version moved, with the
   * version the znode holds now (read right after the refusal).
   */
  private void lost(CompletableFuture<Versioned<Layout>> f, long expectedVersion) {
    String what = "read the version of " + path + " after a refused compare-and-set";
    background(
        f,
        what,
        cb -> zk.checkExists().inBackground(cb).forPath(path),
        exists ->
            f.completeExceptionally(
                new LayoutVersionMismatchException(expectedVersion, versionOf(exists, what))));
  }

  /** The version an {@code exists} answer names, {@link #NO_VERSION} for no znode. */
  private long versionOf(CuratorEvent exists, String what) {
    Code rc = Code.get(exists.getResultCode());
    if (rc == Code.OK) {
      return exists.getStat().getVersion();
    }
    if (rc == Code.NONODE) {
      return NO_VERSION;
    }
    throw failures.failure(KeeperException.create(rc, path), what);
  }

  private Versioned<Layout> decode(byte[] data, int version) {
    Decoded last = lastDecoded;
    if (last != null
        && data != null
        && last.layout().version() == version
        && Arrays.equals(last.data(), data)) {
      return last.layout();
    }
    Versioned<Layout> decoded = parse(data, version);
    lastDecoded = data == null ? null : new Decoded(data.clone(), decoded);
    return decoded;
  }

  private Versioned<Layout> parse(byte[] data, int version) {
    String json = data == null ? "" : new String(data, StandardCharsets.UTF_8);
    try {
      return new Versioned<>(Layout.fromJson(json), version);
    } catch (LayoutException e) {
      throw new LayoutException(
          "The znode "
              + path
              + " in ZooKeeper at "
              + connectString
              + " (version "
              + version
              + ") does not hold a valid layout: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The raw ZooKeeper handle, for a write sent exactly once; null (and {@code f} failed) if none.
   */
  private ZooKeeper handle(CompletableFuture<?> f, String what) {
    try {
      return zk.getZookeeperClient().getZooKeeper();
    } catch (Exception e) {
      f.completeExceptionally(failures.casFailure(e, what));
      return null;
    }
  }

  /** An operation that starts one Curator background call answering to {@code callback}. */
  @FunctionalInterface
  private interface BackgroundCall {
    void start(BackgroundCallback callback) throws Exception;
  }

  /**
   * Starts {@code call} and runs {@code onAnswer} on the callback thread; anything either throws
   * fails {@code f}.
   */
  private void background(
      CompletableFuture<?> f, String what, BackgroundCall call, Consumer<CuratorEvent> onAnswer) {
    try {
      call.start((c, event) -> onCallbackThread(f, () -> onAnswer.accept(event)));
    } catch (Exception e) {
      f.completeExceptionally(failures.failure(e, what));
    }
  }

  /** Runs {@code step} on the store's callback thread; if it throws, it fails {@code f}. */
  private void onCallbackThread(CompletableFuture<?> f, Runnable step) {
    try {
      callbacks.execute(
          () -> {
            try {
              step.run();
            } catch (RuntimeException e) {
              f.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      f.completeExceptionally(closedException());
    }
  }

  private <T> CompletableFuture<T> newCall() {
    CompletableFuture<T> f = new CompletableFuture<>();
    inFlight.add(f);
    f.whenComplete((v, e) -> inFlight.remove(f));
    if (closed) {
      // Checked after registering, so that close() either sees f or f sees the store closed.
      f.completeExceptionally(closedException());
    }
    return f;
  }

  private void checkOpen() {
    if (closed) {
      throw closedException();
    }
  }

  private IllegalStateException closedException() {
    return new IllegalStateException("The layout store for " + path + " is closed.");
  }

  private static String checkClusterName(String cluster) {
    if (cluster == null
        || !CLUSTER_NAME.matcher(cluster).matches()
        || cluster.equals(".")
        || cluster.equals("..")) {
      throw new IllegalArgumentException(
          "The cluster name '"
              + cluster
              + "' cannot name a ZooKeeper path: use letters, digits, '.', '_' and '-' (and not"
              + " just '.' or '..').");
    }
    return cluster;
  }
}
