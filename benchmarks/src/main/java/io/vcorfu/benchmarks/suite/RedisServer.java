package io.vcorfu.benchmarks.suite;

import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TlsContexts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * redis-server on 127.0.0.1:PORT as {@code peers/redis.sh start} runs it: an append-only file
 * forced once a second (appendfsync everysec), no snapshots, data in DIR/redis/data (wiped on every
 * start), a process of the run stopped by its pid.
 */
final class RedisServer {
  private final Processes processes;
  private final Path state;
  private final int port;
  private Processes.Started server;
  private BenchTls tls; // null: plaintext

  RedisServer(Processes processes, Path workdir, int port) {
    this.processes = processes;
    this.state = workdir.resolve("redis");
    this.port = port;
  }

  /**
   * Serves over TLS only with {@code tls}'s server certificate, requiring client certificates of
   * its CA (from the next {@link #start}).
   */
  RedisServer withTls(BenchTls tls) {
    this.tls = tls;
    return this;
  }

  void start() throws IOException, InterruptedException {
    if (server != null) {
      throw new IllegalStateException("redis is already running (PID " + server.pid() + ")");
    }
    Net.requireFree(port);
    Path data = state.resolve("data");
    Workdirs.deleteTree(data);
    Files.createDirectories(data);
    server = processes.start("redis", state.resolve("redis.log"), command(data));
    Net.awaitPort(server, port, 20);
    for (int i = 0; i < 100 && !pong(); i++) {
      Thread.sleep(100);
    }
    if (!pong()) {
      throw new IllegalStateException("redis does not answer PING (log: " + server.log() + ")");
    }
    SuiteLog.log(
        "redis listening on "
            + Net.HOST
            + ":"
            + port
            + (tls == null ? "" : " (TLS only, client certificates required)")
            + ", data in "
            + data);
  }

  private List<String> command(Path data) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "redis-server",
                "--bind",
                Net.HOST,
                "--protected-mode",
                "yes",
                "--daemonize",
                "no",
                "--dir",
                data.toString(),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--databases",
                "1"));
    if (tls == null) {
      cmd.addAll(List.of("--port", "" + port));
    } else {
      cmd.addAll(
          List.of(
              "--port",
              "0",
              "--tls-port",
              "" + port,
              "--tls-cert-file",
              tls.serverCert().toString(),
              "--tls-key-file",
              tls.serverKey().toString(),
              "--tls-ca-cert-file",
              tls.ca().toString(),
              "--tls-auth-clients",
              "yes"));
    }
    return cmd;
  }

  private boolean pong() {
    try (Socket s = socket()) {
      s.connect(new InetSocketAddress(Net.HOST, port), 500);
      s.setSoTimeout(1000);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] reply = new byte[7];
      int n = in.readNBytes(reply, 0, 7);
      return new String(reply, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
    } catch (IOException e) {
      return false;
    }
  }

  private Socket socket() throws IOException {
    if (tls == null) {
      return new Socket();
    }
    TlsOptions client = new TlsOptions(tls.ca(), tls.clientCert(), tls.clientKey());
    return TlsContexts.load(client).jdkContext().getSocketFactory().createSocket();
  }

  /** The running server's process id. */
  long pid() {
    if (server == null) {
      throw new IllegalStateException("redis is not running");
    }
    return server.pid();
  }

  /** Stops the server by its pid and removes its data. */
  void stop() {
    if (server != null) {
      processes.stop(server);
      server = null;
    }
    Workdirs.deleteTree(state.resolve("data"));
  }
}
