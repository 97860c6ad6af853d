package io.vcorfu.benchmarks.ycsb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One YCSB phase in a JVM of its own, started by {@link YcsbRun}: its flags, its output copied line
 * by line, its timeout, and its stop with the launcher's (a launcher stopped by a signal stops the
 * phase's JVM too).
 */
final class PhaseJvm {
  private PhaseJvm() {}

  /** The collector a client phase's JVM runs unless this JVM was given one of its own. */
  static final List<String> CHILD_COLLECTOR = List.of("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=50");

  /**
   * A phase's JVM flags from this JVM's: its {@code -X} options, but with G1 and a 50 ms pause goal
   * ({@link #CHILD_COLLECTOR}, the JDK's own default on a machine of two processors or more, and a
   * node's) in place of the launcher's parallel collector, which suits a command that runs for a
   * moment, not a client under load for minutes: under YCSB A its young collections stopped the
   * client for 80-150 ms every few seconds. A collector other than the parallel one is kept.
   */
  static List<String> childJvmFlags(List<String> parentFlags) {
    List<String> out = new ArrayList<>();
    boolean ownCollector = false;
    for (String f : parentFlags) {
      if (!f.startsWith("-X") || f.equals("-XX:+UseParallelGC")) {
        continue;
      }
      ownCollector |= f.matches("-XX:\\+Use\\w+GC");
      out.add(f);
    }
    if (!ownCollector) {
      out.addAll(0, CHILD_COLLECTOR);
    }
    return out;
  }

  /** What {@link #run} returns for a phase stopped at its timeout. */
  static final int TIMED_OUT = Integer.MIN_VALUE;

  /**
   * Runs YCSB's client with {@code clientArgs} in a JVM of its own, its output lines to {@code
   * stdout} and {@code stderr}; returns its exit status, or {@link #TIMED_OUT} when it was stopped
   * after {@code timeout}.
   */
  static int run(
      List<String> clientArgs, Duration timeout, Consumer<String> stdout, Consumer<String> stderr)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(childJvmFlags(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(YcsbRun.CLIENT_CLASS);
    command.addAll(clientArgs);
    // A launcher stopped by a signal runs no finally block: its hook stops the phase's JVM, which
    // would otherwise go on loading the server with nobody reading its report. The hook is in place
    // before the JVM starts, and the two take turns (PhaseGuard), so a signal at any moment either
    // finds the JVM started and stops it, or keeps it from starting.
    PhaseGuard guard = new PhaseGuard();
    Thread stopOnExit = new Thread(guard::stop, "ycsb-phase-stop");
    Runtime.getRuntime().addShutdownHook(stopOnExit);
    Process child;
    try {
      child = guard.start(new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE));
    } catch (IOException | RuntimeException e) {
      removeHook(stopOnExit);
      throw e;
    }
    child.getOutputStream().close();
    Thread outCopier = copier(child.getInputStream(), stdout, "ycsb-stdout");
    Thread errCopier = copier(child.getErrorStream(), stderr, "ycsb-stderr");
    try {
      if (!child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        stop(child);
        return TIMED_OUT;
      }
      return child.exitValue();
    } finally {
      if (child.isAlive()) {
        stop(child);
      }
      removeHook(stopOnExit);
      outCopier.join(TimeUnit.SECONDS.toMillis(10));
      errCopier.join(TimeUnit.SECONDS.toMillis(10));
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs (or ran) already.
    }
  }

  /**
   * A phase's JVM and the launcher's exit, taking turns: once the launcher is stopping, no phase
   * JVM starts, and one started before is stopped.
   */
  private static final class PhaseGuard {
    private boolean stopping;
    private Process child;

    synchronized Process start(ProcessBuilder builder) throws IOException {
      if (stopping) {
        throw new IOException("the launcher is stopping: the YCSB phase was not started");
      }
      child = builder.start();
      return child;
    }

    /** The launcher's shutdown hook. */
    void stop() {
      Process started;
      synchronized (this) {
        stopping = true;
        started = child;
      }
      if (started == null) {
        return;
      }
      try {
        PhaseJvm.stop(started);
      } catch (InterruptedException e) {
        started.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void stop(Process child) throws InterruptedException {
    child.destroy();
    if (!child.waitFor(10, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static Thread copier(InputStream in, Consumer<String> sink, String name) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  sink.accept(line);
                }
              } catch (IOException e) {
                // The child closed the stream (it ended or was stopped): nothing more to copy.
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}
