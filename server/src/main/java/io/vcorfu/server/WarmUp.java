package io.vcorfu.server;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
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
 * init} places three nodes) for a node of a cluster or of a layout file, so every role's code runs.
 * Its nodes listen on free ports of 127.0.0.1, keep their data in a temporary directory (in memory
 * when the node itself does) with the node's own fsync setting, and run in this process; four
 * clients of this process append 1 KiB entries to 32 streams from eight threads (two each) and
 * reads tails and entries back. The load stops once it has made 20,000 appends (enough for the
 * request path's methods to reach the optimizing compiler) and the compilers have been quiet for
 * two seconds (less than a twentieth of them compiling), or at the limit, whichever is first; then
 * the throwaway cluster is closed and its directory deleted.
 *
 * <p>Nothing of it touches the node's own data directory, port, layout or ZooKeeper: the warm-up
 * runs before the node opens any of them. The warm-up costs its time at every start (a node is not
 * reachable meanwhile), so it is off unless asked for.
 */
public final class WarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(WarmUp.class);

  /** The longest warm-up a node accepts, in seconds. */
  public static final int MAX_SECONDS = 600;

  private static final int THREADS = 8;
  // Clients the threads share, two threads each: nodes see several writers and connections.
  private static final int CLIENTS = 4;
  private static final int STREAMS = 32;
  private static final int VALUE_BYTES = 1024;
  // Enough appends for the request path's methods to pass the optimizing compiler's thresholds.
  private static final long MIN_APPENDS = 20_000;
  private static final long QUIET_WINDOW_MS = 2000;
  private static final long QUIET_COMPILE_MS = 100;
  // Bounds each request of the load, so that a stuck one fails the warm-up instead of the start.
  static final int REQUEST_SECONDS = 30;

  /** What a warm-up did: appends made, how long it took, and whether the compilers went quiet. */
  public record Report(long appends, Duration took, boolean quiet) {}

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
   * @throws IllegalStateException if the warm-up failed (its directory could not be made, a request
   *     of its load failed or took over {@link #REQUEST_SECONDS} s); what it made is removed
   */
  public static Report run(NodeConfig config, boolean replicated, Duration limit, Path parent) {
    if (limit.isNegative() || limit.isZero()) {
      throw new IllegalArgumentException("a warm-up needs a positive limit, not " + limit);
    }
    long start = System.nanoTime();
    Path dir = null;
    List<Node> nodes = new ArrayList<>();
    NettyTransport transport = new NettyTransport();
    try {
      dir = Files.createTempDirectory(parent, "vcorfu-warm-up");
      int count = replicated ? 3 : 1;
      List<Endpoint> endpoints = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        endpoints.add(new Endpoint("127.0.0.1", Scratch.freeLocalPort()));
      }
      Path layout = null;
      if (replicated) {
        layout = dir.resolve("layout.json");
        Files.writeString(layout, LayoutChanges.initial("warm-up", endpoints, 3).toJson());
      }
      for (int i = 0; i < count; i++) {
        Path data = config.dataDir() == null ? null : dir.resolve("node-" + i);
        nodes.add(
            Node.start(
                new NodeConfig(endpoints.get(i), data, layout, config.fsyncInterval()), transport));
      }
      for (Node n : nodes) {
        n.ready().join();
      }
      AtomicLong appends = new AtomicLong();
      boolean quiet = load(endpoints, appends, start + limit.toNanos());
      return new Report(appends.get(), Duration.ofNanos(System.nanoTime() - start), quiet);
    } catch (IOException e) {
      throw new IllegalStateException("the warm-up failed: " + e, e);
    } finally {
      for (Node n : nodes) {
        n.close();
      }
      transport.close();
      if (dir != null) {
        delete(dir);
      }
    }
  }

  /**
   * Appends and reads from {@link #THREADS} threads, counting the appends in {@code appends}, until
   * the compilers go quiet (returns true) or {@code end} (false).
   *
   * @throws IllegalStateException when a request of the load fails or does not finish in time
   */
  private static boolean load(List<Endpoint> endpoints, AtomicLong appends, long end) {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Exception> failure = new AtomicReference<>();
    List<StreamId> streams = new ArrayList<>();
    for (int i = 0; i < STREAMS; i++) {
      streams.add(StreamId.of("warm-up-" + i));
    }
    List<ClusterStreamLog> logs = new ArrayList<>();
    try {
      for (int c = 0; c < CLIENTS; c++) {
        logs.add(ClusterStreamLog.connect(endpoints, StreamLogOptions.defaults()));
      }
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

  private static void delete(Path dir) {
    try {
      Scratch.deleteTree(dir);
    } catch (IOException e) {
      LOG.warn("could not delete the warm-up's directory {}: {}", dir, e.toString());
    }
  }
}
