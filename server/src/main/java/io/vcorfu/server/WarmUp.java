package io.vcorfu.server;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.cluster.ClusterConfig;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's warm-up ({@code vcorfu server --warm-up-s N}): before the node serves, its process runs
 * a short load through a throwaway cluster of its own, so that the JVM has compiled the request
 * path by the time the first client arrives. JDK 17 keeps no compiled code between runs, and on a
 * small machine a fresh node otherwise serves its first tens of seconds at a fraction of its speed
 * while its compilers catch up (a replicated append's path alone is seconds of optimizing
 * compilation).
 *
 * <p>The throwaway cluster has the shape of the node it warms: one node hosting every role for a
 * single node, three nodes replicating every entry three times (a static layout, as {@code cluster
 * init} places three nodes) for a node of a cluster or of a layout file, so every role's code runs;
 * for a cluster node its layout is agreed, as a cluster's is, in a ZooKeeper server of this process
 * ({@link ScratchZooKeeper}) under the node's layout lease and probing settings. Its nodes listen
 * on free ports of 127.0.0.1 (taken again elsewhere when someone took one first), keep their data
 * in a temporary directory (in memory when the node itself does) with the node's own fsync setting,
 * and run in this process; four clients of this process append 1 KiB entries to 32 streams from
 * eight threads (two each) and read tails and entries back, while a fifth connects, appends and
 * leaves every half second so that new clients' first requests stay in the compilers' profiles; for
 * a single node a sixth asks the sequencer for tokens (alone and in bursts, so both forms of token
 * message). The load stops once it has made 20,000 appends (enough for the request path's methods
 * to reach the optimizing compiler) and the compilers have been quiet for two seconds (less than a
 * twentieth of them compiling), or at the limit, whichever is first; then the throwaway cluster is
 * closed and its directory deleted (by a shutdown hook if the process is stopped meanwhile).
 *
 * <p>Nothing of it touches the node's own data directory (but to find out first that another node
 * holds it), port, layout or ZooKeeper: the warm-up runs before the node opens any of them. The
 * warm-up costs its time at every start (a node is not reachable meanwhile), so it is off unless
 * asked for.
 */
public final class WarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(WarmUp.class);

  /** The longest warm-up a node accepts, in seconds. */
  public static final int MAX_SECONDS = 600;

  private static final String CLUSTER = "warm-up";
  private static final int THREADS = 8;
  // A client connected, used for a few appends and closed again every so often.
  private static final int CHURN_APPENDS = 16;
  private static final long CHURN_PAUSE_MS = 500;
  // Clients the threads share, two threads each: nodes see several writers and connections.
  private static final int CLIENTS = 4;
  private static final int STREAMS = 32;
  // Token asks made at once by the token thread, every fourth round (the rest are asked alone): the
  // first of a burst travels alone, the others wait for it and are coalesced into packed messages.
  private static final int TOKEN_BURST = 16;
  private static final int VALUE_BYTES = 1024;
  // Enough appends for the request path's methods to pass the optimizing compiler's thresholds.
  private static final long MIN_APPENDS = 20_000;
  private static final long QUIET_WINDOW_MS = 2000;
  private static final long QUIET_COMPILE_MS = 100;
  // Bounds each request of the load, so that a stuck one fails the warm-up instead of the start.
  static final int REQUEST_SECONDS = 30;
  private static final int PORT_ATTEMPTS = 3;
  // A stopped process's passes at deleting the warm-up's directory, and the pause between them.
  private static final int CLEANUP_PASSES = 50;
  private static final long CLEANUP_PAUSE_MS = 100;

  /**
   * What a warm-up did: appends made, tokens asked for, how long it took, and whether the compilers
   * went quiet.
   */
  public record Report(long appends, long tokens, Duration took, boolean quiet) {}

  private WarmUp() {}

  /**
   * Runs the warm-up for a node with {@code config}'s storage (durable or in memory, and its fsync
   * setting): three replicating nodes when {@code replicated}, else one. Returns within about
   * {@code limit} (plus the throwaway cluster's start and close).
   *
   * @throws IllegalArgumentException if {@code limit} is not positive
   */
  public static Report run(NodeConfig config, boolean replicated, Duration limit) {
    return run(config, replicated, limit, Path.of(System.getProperty("java.io.tmpdir")));
  }

  /**
   * As {@link #run(NodeConfig, boolean, Duration)}, with the throwaway cluster's directory made in
   * {@code parent}.
   *
   * @throws IllegalArgumentException if {@code limit} is not positive
   * @throws IllegalStateException if the warm-up failed (its directory could not be made, its nodes
   *     could not start, a request of its load failed or took over {@link #REQUEST_SECONDS} s);
   *     what it made is removed
   */
  public static Report run(NodeConfig config, boolean replicated, Duration limit, Path parent) {
    if (limit.isNegative() || limit.isZero()) {
      throw new IllegalArgumentException("a warm-up needs a positive limit, not " + limit);
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return runOnce(config, replicated, limit, parent);
      } catch (PortTaken e) {
        // A free port found was taken before a throwaway node bound it (other processes, or other
        // nodes warming up on this machine at the same time): try again on other free ports.
        if (attempt == PORT_ATTEMPTS) {
          throw new IllegalStateException("the warm-up failed: " + e.getCause(), e.getCause());
        }
      }
    }
  }

  /**
   * Refuses, before a warm-up (its caller asks first), a node whose data directory another node
   * holds, which the node would otherwise find out only once it had warmed up: the directory's lock
   * is taken and let go at once (only if the directory exists; nothing is created).
   *
   * @throws DataDirectoryInUseException if another node, of this process or another, holds it
   */
  public static void refuseHeldDataDirectory(NodeConfig config) {
    if (config.dataDir() != null && Files.isDirectory(config.dataDir())) {
      DataDirectoryLock.acquire(config.dataDir()).close();
    }
  }

  /** A throwaway node could not listen on the free port found for it. */
  private static final class PortTaken extends Exception {
    private static final long serialVersionUID = 1L;

    PortTaken(TransportException cause) {
      super(cause);
    }
  }

  private static Report runOnce(NodeConfig config, boolean replicated, Duration limit, Path parent)
      throws PortTaken {
    long start = System.nanoTime();
    Path dir = null;
    ScratchZooKeeper zookeeper = null;
    List<Node> nodes = new ArrayList<>();
    NettyTransport transport = new NettyTransport();
    Thread cleanup = null;
    try {
      dir = Files.createTempDirectory(parent, "vcorfu-warm-up");
      cleanup = removedAtExit(dir);
      int count = replicated ? 3 : 1;
      List<Endpoint> endpoints = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        endpoints.add(new Endpoint("127.0.0.1", Scratch.freeLocalPort()));
      }
      ClusterConfig cluster = null;
      Path layout = null;
      if (replicated && config.cluster() != null) {
        // A cluster node warms up through a cluster of its kind: its layout agreed in a ZooKeeper
        // of this process, under the node's lease and probing settings, so the paths that only a
        // cluster node takes (layout leases, the manager's probes) are compiled too.
        zookeeper = ScratchZooKeeper.start(dir.resolve("zookeeper"));
        ClusterConfig own = config.cluster();
        cluster =
            ClusterConfig.of(zookeeper.connectString(), CLUSTER)
                .withProbing(own.probeInterval(), own.failureTimeout())
                .withLayoutLease(own.layoutLease());
      } else if (replicated) {
        layout = dir.resolve("layout.json");
        Files.writeString(layout, LayoutChanges.initial(CLUSTER, endpoints, 3).toJson());
      }
      for (int i = 0; i < count; i++) {
        Path data = config.dataDir() == null ? null : dir.resolve("node-" + i);
        NodeConfig c = new NodeConfig(endpoints.get(i), data, layout, config.fsyncInterval());
        try {
          nodes.add(Node.start(cluster == null ? c : c.inCluster(cluster), transport));
        } catch (TransportException e) {
          throw new PortTaken(e);
        }
      }
      if (cluster != null) {
        initCluster(cluster, endpoints);
      }
      for (Node n : nodes) {
        n.ready().get(REQUEST_SECONDS, TimeUnit.SECONDS);
      }
      AtomicLong appends = new AtomicLong();
      AtomicLong tokens = new AtomicLong();
      // Only a single node's clients ask its sequencer for tokens as a rule (a cluster's appends go
      // whole to the sequencer node); in a cluster's warm-up the asks took a third of its appends.
      boolean quiet = load(endpoints, appends, replicated ? null : tokens, start + limit.toNanos());
      return new Report(
          appends.get(), tokens.get(), Duration.ofNanos(System.nanoTime() - start), quiet);
    } catch (IOException | ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the warm-up failed: " + e, e);
    } catch (RuntimeException e) {
      // Whatever else stops the throwaway cluster stops only the warm-up, not the node's start.
      throw e instanceof IllegalStateException failed
          ? failed
          : new IllegalStateException("the warm-up failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("the warm-up was interrupted", e);
    } finally {
      for (Node n : nodes) {
        n.close();
      }
      transport.close();
      if (zookeeper != null) {
        zookeeper.close();
      }
      if (dir != null) {
        deleteWhileWritten(dir);
      }
      if (cleanup != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException stopping) {
          // The process is stopping: the hook runs anyway, and finds nothing left to remove.
        }
      }
    }
  }

  /**
   * Writes the throwaway cluster's first layout (every node in every chain, R = 3) to its
   * ZooKeeper, as {@code cluster init} does.
   */
  private static void initCluster(ClusterConfig cluster, List<Endpoint> endpoints)
      throws ExecutionException, InterruptedException, TimeoutException {
    try (ZkLayoutStore store =
        ZkLayoutStore.connect(
            cluster.zookeeper(), cluster.name(), Duration.ofSeconds(REQUEST_SECONDS))) {
      store
          .compareAndSet(LayoutStore.NO_VERSION, LayoutChanges.initial(CLUSTER, endpoints, 3))
          .get(REQUEST_SECONDS, TimeUnit.SECONDS);
    }
  }

  /**
   * Registers a hook that removes {@code dir} should the process be stopped (SIGTERM) during the
   * warm-up, when the warm-up's own clean-up would not run.
   */
  private static Thread removedAtExit(Path dir) {
    Thread hook = new Thread(() -> deleteWhileWritten(dir), "vcorfu-warm-up-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  /**
   * Appends and reads from {@link #THREADS} threads and, unless {@code tokens} is null, asks for
   * tokens from one more, counting the appends in {@code appends} and the tokens in {@code tokens},
   * until the compilers go quiet (returns true) or {@code end} (false).
   *
   * @throws IllegalStateException when a request of the load fails or does not finish in time
   */
  private static boolean load(
      List<Endpoint> endpoints, AtomicLong appends, AtomicLong tokens, long end) {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Exception> failure = new AtomicReference<>();
    List<StreamId> streams = new ArrayList<>();
    for (int i = 0; i < STREAMS; i++) {
      streams.add(StreamId.of("warm-up-" + i));
    }
    List<ClusterStreamLog> logs = new ArrayList<>();
    try {
      // The clients the append threads share, and one of its own for the token thread if any.
      for (int c = 0; c < CLIENTS + (tokens == null ? 0 : 1); c++) {
        logs.add(ClusterStreamLog.connect(endpoints, StreamLogOptions.defaults()));
      }
      awaitServing(logs.get(0));
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int first = t;
        ClusterStreamLog log = logs.get(t % CLIENTS);
        Thread th =
            new Thread(
                () -> {
                  try {
                    byte[] value = new byte[VALUE_BYTES];
                    for (long i = first; !stop.get(); i += THREADS) {
                      StreamId s = streams.get((int) (i % STREAMS));
                      long at = done(log.append(List.of(s), value)).streamAddresses().get(s);
                      appends.incrementAndGet();
                      if (i % 16 == first) {
                        done(log.tails(List.of(s)));
                        done(log.readStream(s, Math.max(0, at - 4), at));
                      }
                    }
                  } catch (Exception e) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                  }
                },
                "warm-up-" + t);
        th.setDaemon(true);
        th.start();
        threads.add(th);
      }
      // New clients keep arriving, as they do at a node that serves: their first requests (a new
      // connection, a writer the node has not seen) stay in the profiles the compilers go by.
      Thread churn =
          new Thread(
              () -> {
                try {
                  byte[] value = new byte[VALUE_BYTES];
                  for (long i = 0; !stop.get(); i++) {
                    try (ClusterStreamLog fresh =
                        ClusterStreamLog.connect(endpoints, StreamLogOptions.defaults())) {
                      StreamId s = streams.get((int) (i % STREAMS));
                      for (int k = 0; k < CHURN_APPENDS && !stop.get(); k++) {
                        done(fresh.append(List.of(s), value));
                        appends.incrementAndGet();
                      }
                      done(fresh.tails(List.of(s)));
                    }
                    Thread.sleep(CHURN_PAUSE_MS);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } catch (Exception e) {
                  failure.compareAndSet(null, e);
                  stop.set(true);
                }
              },
              "warm-up-churn");
      churn.setDaemon(true);
      churn.start();
      threads.add(churn);
      if (tokens != null) {
        Thread asks = tokenAsks(logs.get(CLIENTS), tokens, stop, failure);
        asks.start();
        threads.add(asks);
      }
      boolean quiet = waitForQuiet(appends, stop, end);
      stop.set(true);
      for (Thread th : threads) {
        // A thread's every wait is bounded, so it ends within its last request's bound.
        th.join();
      }
      if (failure.get() != null) {
        throw new IllegalStateException(
            "the warm-up's load failed: " + failure.get(), failure.get());
      }
      return quiet;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop.set(true);
      throw new IllegalStateException("the warm-up was interrupted", e);
    } finally {
      logs.forEach(ClusterStreamLog::close);
    }
  }

  /**
   * A thread that asks {@code log}'s sequencer for tokens until {@code stop}, counting them in
   * {@code tokens}: one ask at a time (each travels alone, as a fixed frame), and every fourth
   * round {@link #TOKEN_BURST} at once (coalesced into packed messages), the forms a sequencer's
   * clients send, so that a node's first token requests after it serves are compiled code too.
   */
  private static Thread tokenAsks(
      ClusterStreamLog log,
      AtomicLong tokens,
      AtomicBoolean stop,
      AtomicReference<Exception> failure) {
    // Streams of their own: their tokens are never written, and nobody reads these streams.
    List<StreamId> streams = new ArrayList<>();
    for (int i = 0; i < STREAMS; i++) {
      streams.add(StreamId.of("warm-up-tokens-" + i));
    }
    Thread th =
        new Thread(
            () -> {
              try {
                List<CompletableFuture<?>> burst = new ArrayList<>(TOKEN_BURST);
                for (long i = 0; !stop.get(); i++) {
                  done(log.ops().token(List.of(streams.get((int) (i % STREAMS))), null, 1));
                  tokens.incrementAndGet();
                  if (i % 4 == 0) {
                    burst.clear();
                    for (int k = 0; k < TOKEN_BURST; k++) {
                      StreamId s = streams.get((int) ((i + k) % STREAMS));
                      burst.add(log.ops().token(List.of(s), null, 1));
                    }
                    for (CompletableFuture<?> f : burst) {
                      done(f);
                    }
                    tokens.addAndGet(TOKEN_BURST);
                  }
                }
              } catch (Exception e) {
                failure.compareAndSet(null, e);
                stop.set(true);
              }
            },
            "warm-up-tokens");
    th.setDaemon(true);
    return th;
  }

  /**
   * Returns once the throwaway cluster answers (a cluster's sequencer serves once it has taken up
   * the first layout), asking every 100 ms for at most {@link #REQUEST_SECONDS}.
   */
  private static void awaitServing(ClusterStreamLog log) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REQUEST_SECONDS);
    while (true) {
      try {
        log.tails(List.of()).get(1, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | TimeoutException e) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "the warm-up's cluster did not serve within " + REQUEST_SECONDS + " s: " + e, e);
        }
        Thread.sleep(100);
      }
    }
  }

  /** {@code f}'s value, waiting at most {@link #REQUEST_SECONDS}. */
  private static <T> T done(CompletableFuture<T> f) throws Exception {
    try {
      return f.get(REQUEST_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /**
   * Returns true once {@link #MIN_APPENDS} appends are made and the JIT compilers spent less than
   * {@link #QUIET_COMPILE_MS} of the last {@link #QUIET_WINDOW_MS} compiling; false at {@code end}
   * or once {@code stop} is set (the load failed).
   */
  private static boolean waitForQuiet(AtomicLong appends, AtomicBoolean stop, long end)
      throws InterruptedException {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
    long last = timed ? jit.getTotalCompilationTime() : 0;
    while (end - System.nanoTime() > 0 && !stop.get()) {
      long window = Math.min(QUIET_WINDOW_MS, Math.max(1, (end - System.nanoTime()) / 1_000_000));
      for (long waited = 0; waited < window && !stop.get(); waited += 100) {
        Thread.sleep(Math.min(100, window - waited));
      }
      long now = timed ? jit.getTotalCompilationTime() : 0;
      if (timed && appends.get() >= MIN_APPENDS && now - last < QUIET_COMPILE_MS) {
        return true;
      }
      last = now;
    }
    return false;
  }

  /**
   * Deletes {@code dir} while the throwaway nodes may still write in it (a stopping process runs
   * its shutdown hooks beside its other threads): a file they create during a pass keeps its
   * directory, so passes follow until {@code dir} is gone, for at most {@link #CLEANUP_PASSES} of
   * them.
   */
  private static void deleteWhileWritten(Path dir) {
    IOException last = null;
    for (int pass = 0; pass < CLEANUP_PASSES && Files.exists(dir); pass++) {
      try {
        Scratch.deleteTree(dir);
      } catch (IOException e) {
        last = e;
        try {
          Thread.sleep(CLEANUP_PAUSE_MS);
        } catch (InterruptedException stopping) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    if (Files.exists(dir)) {
      LOG.warn("could not delete the warm-up's directory {}: {}", dir, String.valueOf(last));
    }
  }
}
