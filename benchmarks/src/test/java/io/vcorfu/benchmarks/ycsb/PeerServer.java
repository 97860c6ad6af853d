package io.vcorfu.benchmarks.ycsb;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A redis-server or etcd process started by a test on a free 127.0.0.1 port, with its state in a
 * test directory, and stopped through its own process handle (never by name).
 */
final class PeerServer implements AutoCloseable {
  static final Path REDIS_SERVER = Path.of("/usr/bin/redis-server");
  static final Path ETCD = Path.of("/usr/bin/etcd");

  private final Process process;
  private final int port;

  private PeerServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  int port() {
    return port;
  }

  String endpoint() {
    return "127.0.0.1:" + port;
  }

  /** Skips the calling test class, with the reason printed, if {@code binary} is not installed. */
  static void assumeInstalled(Path binary) {
    boolean installed = Files.isExecutable(binary);
    if (!installed) {
      System.err.println(
          "Skipping: " + binary + " is not installed, so there is no server to test against.");
    }
    Assumptions.assumeTrue(
        installed, binary + " is not installed, so there is no server to test against.");
  }

  static PeerServer redis(Path dir) throws IOException {
    int port = freePort();
    return start(
        List.of(
            REDIS_SERVER.toString(),
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            dir.toString(),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes"),
        dir,
        port);
  }

  static PeerServer etcd(Path dir) throws IOException {
    int port = freePort();
    int peerPort = freePort();
    String client = "http://127.0.0.1:" + port;
    String peer = "http://127.0.0.1:" + peerPort;
    return start(
        List.of(
            ETCD.toString(),
            "--name",
            "ycsb-test",
            "--data-dir",
            dir.resolve("data").toString(),
            "--listen-client-urls",
            client,
            "--advertise-client-urls",
            client,
            "--listen-peer-urls",
            peer,
            "--initial-advertise-peer-urls",
            peer,
            "--initial-cluster",
            "ycsb-test=" + peer),
        dir,
        port);
  }

  private static PeerServer start(List<String> command, Path dir, int port) throws IOException {
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("server.log").toFile())
            .start();
    PeerServer server = new PeerServer(process, port);
    try {
      await("server listening on 127.0.0.1:" + port)
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> !process.isAlive() || accepts(port));
      if (!process.isAlive()) {
        throw new IOException(
            command.get(0)
                + " exited with status "
                + process.exitValue()
                + "; see "
                + dir.resolve("server.log"));
      }
    } catch (RuntimeException | IOException e) {
      server.close();
      throw e;
    }
    return server;
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
