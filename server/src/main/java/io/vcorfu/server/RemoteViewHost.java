package io.vcorfu.server;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.StreamLogOptions;
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
 * first call), with object classes loaded from the configured class path.
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
    return CompletableFuture.supplyAsync(() -> executor().execute(request), pool);
  }

  private synchronized RemoteViewExecutor executor() {
    if (closed) {
      throw new io.vcorfu.protocol.NotServingException("remote-view host");
    }
    if (executor == null) {
      ClassLoader classes = loader();
      VCorfuRuntime runtime =
          VCorfuRuntime.using(
              overLocalRoles.apply(
                  ClusterStreamLog.connect(transport, self.get(), StreamLogOptions.defaults())));
      executor =
          new RemoteViewExecutor(
              runtime, classes, config.checkpointEvery(), config.checkpointInterval());
      LOG.info(
          "node {} hosts remote views (classes from {}; checkpoints every {} updates and every {})",
          self.get(),
          config.classpath() == null ? "the server's class path" : config.classpath(),
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
