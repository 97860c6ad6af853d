package io.vcorfu.server;

import io.vcorfu.protocol.Endpoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
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
  private final Thread pump;

  private ServerProcess(Process process, Endpoint endpoint) {
    this.process = process;
    this.endpoint = endpoint;
    pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
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

  /**
   * Starts {@code vcorfu server --port P --data-dir DIR [--layout FILE]}; see {@link #awaitReady}.
   */
  public static ServerProcess start(int port, Path dataDir, Path layout) {
    List<String> args = new ArrayList<>(List.of("--data-dir", dataDir.toString()));
    if (layout != null) {
      args.add("--layout");
      args.add(layout.toString());
    }
    return start(port, args);
  }

  /** Starts {@code vcorfu server --port P ARGS...}; see {@link #awaitReady}. */
  public static ServerProcess start(int port, List<String> args) {
    List<String> cli = new ArrayList<>(List.of("server", "--port", Integer.toString(port)));
    // The global log keeps its entries for the tests' whole length: they read it back, and compare
    // its replicas, after their faults (the log's trim has tests of its own).
    cli.addAll(List.of("--log-retention-ms", "600000"));
    cli.addAll(args);
    return startCli(port, cli);
  }

  /**
   * Starts {@code vcorfu server --port P ARGS...} with the server's own log retention (its default
   * unless {@code args} names one): the global log is trimmed as in production, for the tests of
   * bounded storage; see {@link #awaitReady}.
   */
  public static ServerProcess startWithLogTrims(int port, List<String> args) {
    List<String> cli = new ArrayList<>(List.of("server", "--port", Integer.toString(port)));
    cli.addAll(args);
    return startCli(port, cli);
  }

  /**
   * Starts {@code vcorfu ARGS...} (any command that serves on 127.0.0.1:{@code port}, such as
   * {@code server} or {@code zookeeper}); see {@link #awaitReady}.
   */
  public static ServerProcess startCli(int port, List<String> args) {
    return startCli(port, List.of(), args);
  }

  /**
   * {@link #startCli(int, List)} with {@code jvmFlags} given to the JVM (system properties, for
   * example the installed logging configuration instead of the tests' one).
   */
  public static ServerProcess startCli(int port, List<String> jvmFlags, List<String> args) {
    List<String> cmd = ChildJvm.command("512m", "io.vcorfu.server.cli.VcorfuCli");
    cmd.addAll(1, jvmFlags);
    cmd.addAll(args);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      ServerProcess server = new ServerProcess(p, new Endpoint("127.0.0.1", port));
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Waits until the server printed its ready line, {@code ... ready (...)} (or fails naming what it
   * printed). Log lines that say "ready" of a part of the node (the sequencer's, printed before the
   * node's own line) do not count: the node's line comes after everything its tests look for.
   */
  public ServerProcess awaitReady() {
    Awaitility.await("server " + endpoint + " ready")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException("server " + endpoint + " exited: " + output);
              }
              return output.stream().anyMatch(l -> l.contains(" ready ("));
            });
    return this;
  }

  /** Waits until the process exited (or fails naming what it printed); returns its exit code. */
  public int awaitExit(Duration within) throws InterruptedException {
    if (!process.waitFor(within.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          "server " + endpoint + " still running after " + within + ": " + output);
    }
    // The output pump may still be reading the last lines the process wrote.
    Awaitility.await("output of " + endpoint + " read")
        .atMost(Duration.ofSeconds(10))
        .until(() -> !pump.isAlive());
    return process.exitValue();
  }

  /**
   * The {@code vcorfu: ...} line the process printed (fails naming the output if there is none).
   */
  public static String errorLine(ServerProcess server) {
    return server.output().stream()
        .filter(l -> l.startsWith("vcorfu: "))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no 'vcorfu: ' line in " + server.output()));
  }

  public Endpoint endpoint() {
    return endpoint;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  public List<String> output() {
    return List.copyOf(output);
  }

  /** SIGSTOP to this process (and only this one): it stops running, its sockets stay open. */
  public void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT to this process, paused by {@link #pause}. */
  public void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  /** Sends signal {@code name} ({@code TERM}, {@code INT}, ...) to this process only. */
  public void signal(String name) throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /**
   * True when this process ignores signal {@code name} ({@code INT}, {@code TERM}, {@code HUP} or
   * {@code QUIT}) from its start, as its SigIgn mask in {@code /proc} says: a process started from
   * a background job of a shell without job control inherits SIGINT and SIGQUIT ignored, and a JVM
   * then leaves them ignored (as {@code nohup} expects), so no handler of its own sees them.
   */
  public boolean ignores(String name) throws IOException {
    int number =
        switch (name) {
          case "HUP" -> 1;
          case "INT" -> 2;
          case "QUIT" -> 3;
          case "TERM" -> 15;
          default -> throw new IllegalArgumentException("no signal number known for " + name);
        };
    for (String line :
        java.nio.file.Files.readAllLines(
            Path.of("/proc", Long.toString(process.pid()), "status"))) {
      if (line.startsWith("SigIgn:")) {
        long mask = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
        return (mask & (1L << (number - 1))) != 0;
      }
    }
    throw new IOException("no SigIgn line in /proc/" + process.pid() + "/status");
  }

  /** SIGKILL to this process (and only this one); waits until it is gone. */
  public void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** A free port for a node process, below the ephemeral range (see TestPorts). */
  public static int freePort() {
    return io.vcorfu.layout.TestPorts.free();
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
