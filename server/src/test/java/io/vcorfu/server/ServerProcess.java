package io.vcorfu.server;

import io.vcorfu.protocol.Endpoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;

/**
 * A real {@code vcorfu server} process on loopback, started from this JVM's class path. Tracks its
 * own process id; {@link #kill9()} ends exactly that process with SIGKILL.
 */
public final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final Endpoint endpoint;

  private ServerProcess(Process process, Endpoint endpoint) {
    this.process = process;
    this.endpoint = endpoint;
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  output.add(line);
                }
              } catch (IOException e) {
                // the process ended
              }
            },
            "server-output-" + endpoint.port());
    pump.setDaemon(true);
    pump.start();
  }

  /** Starts {@code vcorfu server --port P --data-dir DIR [--layout FILE]} and waits for its ready line. */
  public static ServerProcess start(int port, Path dataDir, Path layout) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.vcorfu.server.cli.VcorfuCli");
    cmd.add("server");
    cmd.add("--port");
    cmd.add(Integer.toString(port));
    cmd.add("--data-dir");
    cmd.add(dataDir.toString());
    if (layout != null) {
      cmd.add("--layout");
      cmd.add(layout.toString());
    }
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      ServerProcess server = new ServerProcess(p, new Endpoint("127.0.0.1", port));
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until the server printed its ready line (or fails naming what it printed). */
  public ServerProcess awaitReady() {
    Awaitility.await("server " + endpoint + " ready")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException("server " + endpoint + " exited: " + output);
              }
              return output.stream().anyMatch(l -> l.contains("ready"));
            });
    return this;
  }

  public Endpoint endpoint() {
    return endpoint;
  }

  public long pid() {
    return process.pid();
  }

  public List<String> output() {
    return List.copyOf(output);
  }

  /** SIGKILL to this process (and only this one); waits until it is gone. */
  public void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Ends this process: SIGTERM, then SIGKILL if it has not exited within 10 s. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        kill9();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
