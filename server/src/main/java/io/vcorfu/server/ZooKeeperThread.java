package io.vcorfu.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.ZooKeeperServerMain;

/**
 * ZooKeeper's own single server ({@link ZooKeeperServerMain}) run on a thread of its own in this
 * process, with what stopped it: {@code vcorfu zookeeper}'s server and a warm-up's {@link
 * ScratchZooKeeper}.
 */
public final class ZooKeeperThread {
  private final ZooKeeperServerMain server = new ZooKeeperServerMain();
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final Thread thread;

  /** Starts serving {@code config} on a new thread called {@code name}. */
  public ZooKeeperThread(ServerConfig config, String name, boolean daemon) {
    thread =
        new Thread(
            () -> {
              try {
                server.runFromConfig(config);
              } catch (Exception e) {
                failure.set(e);
              }
            },
            name);
    thread.setDaemon(daemon);
    thread.start();
  }

  /**
   * Waits until the server accepts connections on {@code host:port}: true then, false if it stopped
   * first or did not within {@code timeout}.
   */
  public boolean awaitListening(String host, int port, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!accepts(host, port)) {
      if (!thread.isAlive() || System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  private static boolean accepts(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** What ended the server with an error, or null. */
  public Exception failure() {
    return failure.get();
  }

  /** Stops the server (its sessions end with it); {@link #join} waits for it. */
  public void close() {
    server.close();
  }

  /** Waits until the server has stopped, at most {@code timeout} (null: as long as it takes). */
  public void join(Duration timeout) throws InterruptedException {
    if (timeout == null) {
      thread.join();
    } else {
      thread.join(timeout.toMillis());
    }
  }
}
