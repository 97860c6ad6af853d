package io.vcorfu.server;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.ClassesNeededException;
import io.vcorfu.protocol.ClassesRefusedException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.proto.ViewCallRequest;
import io.vcorfu.protocol.proto.ViewCallResponse;
import io.vcorfu.runtime.VCorfuRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote-view host of a node that holds stream replicas: runs view calls for the objects whose
 * streams it holds, on an object runtime of its own connected to its own cluster (created on the
 * first call), with object classes loaded from the configured class path, or from a class bundle a
 * client shipped ({@link ShippedClasses}).
 *
 * <p>Which code runs for a call (the invariant this class keeps):
 *
 * <ul>
 *   <li>A call naming no bundle runs the class of the node's class path, as before bundles.
 *   <li>On a node started with {@code --accept-remote-classes}, a call naming a bundle by digest
 *       runs exactly that version, or nothing: the shipped bundle with that digest if one is loaded
 *       (and only a class it holds), else the class path's class if its bundle there has that
 *       digest, else the classes the call carries, once checked against the digest (the node's
 *       authorization asked for {@code deploy} on the stream before they got here); a call carrying
 *       none is answered {@link ClassesNeededException}.
 *   <li>A node not accepting shipped classes never loads any: it runs its class path's version of
 *       the class whatever the digest (as before bundles), and refuses a class its class path does
 *       not have with {@link ClassesRefusedException}.
 *   <li>Shipped code runs only in its bundle's own loader, whose parent is the class-path loader:
 *       it shares vcorfu's runtime classes and the node's libraries, never another bundle's
 *       classes, and has its own runtime and hosted views.
 * </ul>
 *
 * <p>Calls block on the stream log, so they run on this service's own threads, never on the
 * transport's. Thread-safe.
 */
final class RemoteViewHost implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteViewHost.class);
  private static final int THREADS = 4;

  private final Transport transport;
  private final Supplier<Endpoint> self;
  private final NodeConfig config;
  private final UnaryOperator<StreamLog> overLocalRoles;
  private final ExecutorService pool;
  private RemoteViewExecutor executor; // guarded by this
  private URLClassLoader ownLoader; // guarded by this
  private ShippedClasses shipped; // guarded by this
  private boolean closed; // guarded by this

  /**
   * A host whose runtime reaches the cluster through {@code transport} from {@code self}, with the
   * cluster log wrapped by {@code overLocalRoles} so that what this node holds is read in process.
   */
  RemoteViewHost(
      Transport transport,
      Supplier<Endpoint> self,
      NodeConfig config,
      UnaryOperator<StreamLog> overLocalRoles) {
    this.transport = transport;
    this.self = self;
    this.config = config;
    this.overLocalRoles = overLocalRoles;
    AtomicInteger n = new AtomicInteger();
    this.pool =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "vcorfu-views-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** Runs {@code request} on this service's threads. */
  CompletableFuture<ViewCallResponse> call(ViewCallRequest request) {
    return CompletableFuture.supplyAsync(() -> run(request), pool);
  }

  private ViewCallResponse run(ViewCallRequest request) {
    RemoteViewExecutor own = executor();
    if (request.getBundleDigest().isEmpty()) {
      return own.execute(request);
    }
    String type = request.getType();
    byte[] digest = request.getBundleDigest().toByteArray();
    ShippedClasses shipped = shipped();
    if (shipped != null) {
      try (ShippedClasses.Use use = shipped.use(type, digest)) {
        if (use != null) {
          return use.executor().execute(request);
        }
      }
    }
    Boolean same = own.hasVersion(type, digest);
    if (Boolean.TRUE.equals(same)) {
      return own.execute(request);
    }
    if (shipped == null) {
      if (same != null) {
        return own.execute(request); // not taking classes: its class path's version, as before
      }
      throw new ClassesRefusedException(
          type,
          "node "
              + self.get()
              + " does not have class "
              + type
              + " and does not accept classes from clients: put the class on its --classpath,"
              + " or start it with --accept-remote-classes");
    }
    if (request.getBundleCount() == 0) {
      throw new ClassesNeededException(type, digest);
    }
    try (ShippedClasses.Use use = shipped.load(type, digest, request.getBundleList())) {
      return use.executor().execute(request);
    }
  }

  /** The shipped bundles, made on first use; null when the node does not accept them. */
  private synchronized ShippedClasses shipped() {
    if (!config.remoteClasses().accept()) {
      return null;
    }
    if (closed) {
      throw new io.vcorfu.protocol.NotServingException("remote-view host");
    }
    if (shipped == null) {
      shipped =
          new ShippedClasses(
              config.remoteClasses(), executor().classes(), loader -> newExecutor(loader));
    }
    return shipped;
  }

  /**
   * A new executor over a new runtime of this node, loading object classes from {@code classes}.
   */
  private RemoteViewExecutor newExecutor(ClassLoader classes) {
    VCorfuRuntime runtime =
        VCorfuRuntime.using(
            overLocalRoles.apply(
                ClusterStreamLog.connect(transport, self.get(), StreamLogOptions.defaults())));
    return new RemoteViewExecutor(
        runtime, classes, config.checkpointEvery(), config.checkpointInterval());
  }

  /** The shipped bundles (tests). */
  synchronized ShippedClasses shippedClasses() {
    return shipped;
  }

  private synchronized RemoteViewExecutor executor() {
    if (closed) {
      throw new io.vcorfu.protocol.NotServingException("remote-view host");
    }
    if (executor == null) {
      executor = newExecutor(loader());
      LOG.info(
          "node {} hosts remote views (classes from {}{}; checkpoints every {} updates and every"
              + " {})",
          self.get(),
          config.classpath() == null ? "the server's class path" : config.classpath(),
          config.remoteClasses().accept() ? " and from clients" : "",
          config.checkpointEvery(),
          config.checkpointInterval());
    }
    return executor;
  }

  private ClassLoader loader() {
    ClassLoader parent = RemoteViewHost.class.getClassLoader();
    List<Path> paths = config.classpath();
    if (paths == null) {
      return parent;
    }
    URL[] urls = new URL[paths.size()];
    try {
      for (int i = 0; i < urls.length; i++) {
        urls[i] = paths.get(i).toUri().toURL();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot use class path " + paths, e);
    }
    ownLoader = new URLClassLoader("vcorfu-objects", urls, parent);
    return ownLoader;
  }

  @Override
  public synchronized void close() {
    closed = true;
    pool.shutdownNow();
    if (shipped != null) {
      shipped.close();
    }
    if (executor != null) {
      executor.close();
    }
    if (ownLoader != null) {
      try {
        ownLoader.close();
      } catch (IOException e) {
        LOG.warn("closing the object class loader failed: {}", e.toString());
      }
    }
  }
}
