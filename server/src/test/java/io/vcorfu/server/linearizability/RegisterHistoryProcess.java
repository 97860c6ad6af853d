package io.vcorfu.server.linearizability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * One {@link RegisterHistoryClient} process started from this JVM's class path: its output, its
 * progress and the file it writes its calls to. Only this process is ever ended, by its handle.
 *
 * <p>Clocks: the processes record {@code System.nanoTime()}, which on Linux is {@code
 * CLOCK_MONOTONIC}, one clock for the whole machine, so readings of different JVMs compare. {@link
 * #start} checks that: the clock the client prints as it starts lies between this JVM's readings
 * before starting it and after reading the line.
 */
public final class RegisterHistoryProcess implements AutoCloseable {
  private final Process process;
  private final Path historyFile;
  private final String name;
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final long startedBefore;
  private volatile long clockLineReadAt;
  private volatile long completed;
  private volatile long failed;
  private volatile long reportedAt = Long.MIN_VALUE;

  private RegisterHistoryProcess(
      Process process, Path historyFile, String name, long startedBefore) {
    this.process = process;
    this.historyFile = historyFile;
    this.name = name;
    this.startedBefore = startedBefore;
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  if (line.startsWith("clock ") && clockLineReadAt == 0) {
                    clockLineReadAt = System.nanoTime();
                  }
                  if (line.startsWith("progress ")) {
                    String[] f = line.split(" ");
                    completed = Long.parseLong(f[1]);
                    failed = Long.parseLong(f[2]);
                    reportedAt = Long.parseLong(f[3]);
                  } else {
                    output.add(line);
                  }
                }
              } catch (IOException e) {
                // the process ended
              }
            },
            "client-output-" + name);
    pump.setDaemon(true);
    pump.start();
  }

  /** Starts a client process doing what {@code settings} say; returns once its clock is checked. */
  public static RegisterHistoryProcess start(RegisterHistoryClient.Settings settings)
      throws IOException {
    RegisterHistoryProcess c = launch(settings);
    try {
      c.checkClock();
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** Starts a client process doing what {@code settings} say, without waiting for it. */
  private static RegisterHistoryProcess launch(RegisterHistoryClient.Settings settings)
      throws IOException {
    List<String> cmd =
        new ArrayList<>(
            io.vcorfu.server.ChildJvm.command("256m", RegisterHistoryClient.class.getName()));
    cmd.addAll(settings.toArgs());
    long before = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    return new RegisterHistoryProcess(p, settings.historyFile(), settings.process(), before);
  }

  /**
   * Waits for the clock line and checks that the clock it reports lies between this JVM's readings
   * before the process was started and after the line was read.
   */
  private void checkClock() {
    awaitLine("clock ", Duration.ofSeconds(60));
    long clock =
        Long.parseLong(
            output.stream()
                .filter(l -> l.startsWith("clock "))
                .findFirst()
                .orElseThrow()
                .substring("clock ".length())
                .trim());
    assertThat(clock)
        .as(
            "%s's System.nanoTime() lies between this JVM's readings around it: one clock for both",
            name)
        .isBetween(startedBefore, clockLineReadAt);
  }

  /**
   * Starts {@code count} client processes p1, p2, ..., each doing what {@code base} says but with a
   * name, seed ({@code base.seed() + 1000 * i}) and history file ({@code dir/history-i}) of its
   * own, all started at once (each one's clock checked as by {@link #start}), waits until every one
   * is ready, then lets them all go at once. Closes those already started if one fails to start.
   */
  public static List<RegisterHistoryProcess> startTogether(
      int count, RegisterHistoryClient.Settings base, Path dir) throws IOException {
    return startTogether(count, base, dir, i -> base.leaseMs());
  }

  /**
   * {@link #startTogether(int, RegisterHistoryClient.Settings, Path)} with process {@code i} (from
   * 1) holding a read lease of {@code leaseMsOf.applyAsLong(i)} ms (0: none).
   */
  public static List<RegisterHistoryProcess> startTogether(
      int count,
      RegisterHistoryClient.Settings base,
      Path dir,
      java.util.function.IntToLongFunction leaseMsOf)
      throws IOException {
    List<RegisterHistoryProcess> clients = new ArrayList<>();
    try {
      for (int i = 1; i <= count; i++) {
        clients.add(
            launch(
                new RegisterHistoryClient.Settings(
                    base.endpoints(),
                    leaseMsOf.applyAsLong(i),
                    "p" + i,
                    base.threads(),
                    base.keys(),
                    base.callsPerThread(),
                    base.durationMs(),
                    base.seed() + 1000L * i,
                    dir.resolve("history-" + i),
                    base.failoverTimeoutMs(),
                    base.thinkMs())));
      }
      for (RegisterHistoryProcess c : clients) {
        c.checkClock();
      }
      for (RegisterHistoryProcess c : clients) {
        c.awaitLine("ready", Duration.ofSeconds(60));
      }
      for (RegisterHistoryProcess c : clients) {
        c.send("go");
      }
      return clients;
    } catch (IOException | RuntimeException e) {
      clients.forEach(RegisterHistoryProcess::close);
      throw e;
    }
  }

  public String name() {
    return name;
  }

  /**
   * When the process read the counts of its last report, on this machine's monotonic clock ({@link
   * System#nanoTime}; {@link Long#MIN_VALUE} before any report): {@link #completed} counts at least
   * every call that returned before then.
   */
  public long reportedAt() {
    return reportedAt;
  }

  /** Calls completed so far, as last reported by the process (0 before it runs). */
  public long completed() {
    return completed;
  }

  /** Calls failed so far (recorded as pending), as last reported by the process. */
  public long failed() {
    return failed;
  }

  /** Waits until the process printed a line starting with {@code prefix}. */
  public void awaitLine(String prefix, Duration atMost) {
    Awaitility.await(name + " prints " + prefix)
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              if (output.stream().anyMatch(l -> l.startsWith(prefix))) {
                return true;
              }
              if (!process.isAlive()) {
                throw new IllegalStateException(
                    name + " exited with " + process.exitValue() + ": " + output);
              }
              return false;
            });
  }

  /** Sends {@code line} to the process's standard input ({@code go}, {@code stop}). */
  public void send(String line) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** Waits until the process exited with code 0. */
  public void awaitExit(Duration atMost) throws InterruptedException {
    assertThat(process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS))
        .as("%s exits: %s", name, output)
        .isTrue();
    assertThat(process.exitValue()).as("%s's exit code: %s", name, output).isZero();
  }

  /** The calls the process wrote (after it exited). */
  public List<Operation> history() throws IOException {
    return Files.readAllLines(historyFile, StandardCharsets.UTF_8).stream()
        .map(Operation::parse)
        .toList();
  }

  /** Ends this process (and only it) if it is still running. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
