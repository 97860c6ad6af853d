package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/** Ports on 127.0.0.1: whether one is taken, waiting for one to open, a small HTTP GET. */
final class Net {
  static final String HOST = "127.0.0.1";
  private static final int CONNECT_MS = 500;

  private Net() {}

  /** Whether something accepts TCP connections on HOST:PORT. */
  static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(HOST, port), CONNECT_MS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Fails if something already listens on PORT. */
  static void requireFree(int port) {
    if (listening(port)) {
      throw new IllegalStateException(HOST + ":" + port + " is already in use by another process");
    }
  }

  /**
   * Waits up to SECONDS for PORT to accept connections, failing early (with the log's last lines on
   * standard error) if P exits.
   */
  static void awaitPort(Processes.Started p, int port, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (!p.alive()) {
        Workdirs.showTail(p.log(), 20);
        throw new IllegalStateException(
            p.name() + " exited during start-up (log: " + p.log() + ")");
      }
      if (listening(port)) {
        return;
      }
      Thread.sleep(100);
    }
    Workdirs.showTail(p.log(), 20);
    throw new IllegalStateException(
        HOST
            + ":"
            + port
            + " did not accept connections within "
            + seconds
            + " s (log: "
            + p.log()
            + ")");
  }

  /** The body of GET http://127.0.0.1:PORT/PATH, or null when it cannot be had in 2 s. */
  static String get(int port, String path) {
    try {
      HttpURLConnection c =
          (HttpURLConnection)
              URI.create("http://" + HOST + ":" + port + path).toURL().openConnection();
      c.setConnectTimeout(2000);
      c.setReadTimeout(2000);
      try (InputStream in = c.getResponseCode() < 400 ? c.getInputStream() : c.getErrorStream()) {
        return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } finally {
        c.disconnect();
      }
    } catch (IOException e) {
      return null;
    }
  }
}
