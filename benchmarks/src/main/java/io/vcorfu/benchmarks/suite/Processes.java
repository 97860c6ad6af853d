package io.vcorfu.benchmarks.suite;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The processes one suite run starts, each known by its pid (a {@link Process} of this JVM, so a
 * pid is never recycled under it: the JVM reaps its own children). {@link #close} ends every one
 * still running, newest first, with its descendants (a bench client's child JVMs); a shutdown hook
 * does the same when the run is interrupted. Nothing is ever signalled by name.
 *
 * <p>Thread-safe: the run's thread starts and stops processes while the hook may close them all.
 */
final class Processes implements AutoCloseable {
  private static final long TERM_WAIT_MS = 20_000;
  private static final long KILL_WAIT_MS = 5_000;

  private final Deque<Started> running = new ArrayDeque<>();
  private final Deque<Runnable> atClose = new ArrayDeque<>();
  private final Thread hook = new Thread(this::close, "suite-cleanup");
  private boolean closed;

  Processes() {
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** One started process: a name for the log lines, the process, and its log (or null). */
  record Started(String name, Process process, Path log) {
    long pid() {
      return process.pid();
    }

    boolean alive() {
      return process.isAlive();
    }
  }

  /** Starts COMMAND in the background, standard input empty, both outputs to LOG. */
  synchronized Started start(String name, Path log, List<String> command) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    return track(name, log, builder, command);
  }

  /** Starts COMMAND with its standard output to OUT and its standard error to ERR. */
  synchronized Started start(String name, Path out, Path err, List<String> command)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    return track(name, out, builder, command);
  }

  /** Starts COMMAND with its standard output to this process's standard output or error. */
  synchronized Started startInheriting(String name, boolean toStdout, List<String> command)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(
                toStdout
                    ? ProcessBuilder.Redirect.INHERIT
                    : ProcessBuilder.Redirect.appendTo(stderr()))
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    return track(name, null, builder, command);
  }

  private static File stderr() {
    return new File("/dev/stderr");
  }

  private Started track(String name, Path log, ProcessBuilder builder, List<String> command)
      throws IOException {
    if (closed) {
      throw new IllegalStateException("the run is ending; not starting " + name);
    }
    Process process = builder.start();
    Started started = new Started(name, process, log);
    running.push(started);
    SuiteLog.log(
        "started "
            + Path.of(command.get(0)).getFileName()
            + " with PID "
            + process.pid()
            + " ("
            + name
            + (log == null ? ")" : ", log: " + log + ")"));
    return started;
  }

  /** Also runs ACTION at close (after every process has ended): a work directory's removal. */
  synchronized void atClose(Runnable action) {
    atClose.push(action);
  }

  /** Waits for P to exit; its exit status. */
  static int waitFor(Started p) throws InterruptedException {
    return p.process().waitFor();
  }

  /** SIGKILL to P's pid alone (a failure to measure), without waiting. */
  static void kill9(Started p) {
    p.process().destroyForcibly();
  }

  /**
   * Ends P and its descendants: SIGTERM, SIGKILL after 20 s. A process that already exited (killed
   * by a failover measurement) is only forgotten.
   */
  void stop(Started p) {
    synchronized (this) {
      running.remove(p);
    }
    if (!p.alive()) {
      return;
    }
    p.process().descendants().forEach(ProcessHandle::destroy);
    p.process().destroy();
    try {
      if (!p.process().waitFor(TERM_WAIT_MS, TimeUnit.MILLISECONDS)) {
        SuiteLog.log(p.name() + " PID " + p.pid() + " ignored SIGTERM for 20 s; sending SIGKILL");
        p.process().descendants().forEach(ProcessHandle::destroyForcibly);
        p.process().destroyForcibly();
        p.process().waitFor(KILL_WAIT_MS, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      p.process().destroyForcibly();
      Thread.currentThread().interrupt();
    }
    if (p.alive()) {
      throw new IllegalStateException(
          p.name() + " PID " + p.pid() + " is still running after SIGKILL");
    }
    SuiteLog.log("stopped " + p.name() + " (PID " + p.pid() + ")");
  }

  @Override
  public void close() {
    Deque<Started> left;
    Deque<Runnable> actions;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      left = new ArrayDeque<>(running);
      actions = new ArrayDeque<>(atClose);
    }
    for (Started p : left) {
      try {
        stop(p);
      } catch (RuntimeException e) {
        SuiteLog.log(e.getMessage());
      }
    }
    for (Runnable action : actions) {
      action.run();
    }
    if (Thread.currentThread() != hook) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running or ran: nothing left to undo
      }
    }
  }
}
