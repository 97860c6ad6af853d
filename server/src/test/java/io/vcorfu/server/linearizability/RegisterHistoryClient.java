package io.vcorfu.server.linearizability;

import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A client process of the history tests ({@link RegisterHistoryProcess} starts it): runs a {@link
 * RegisterWorkload} through its own runtime and writes the calls it made to a file, one {@link
 * Operation#format} line each.
 *
 * <p>Protocol on standard streams: prints {@code clock <nanoTime>} first (the test checks that the
 * clocks of the processes compare), then {@code ready} once its registers are open, waits for a
 * line {@code go} on standard input, runs, writes the file and prints {@code done <calls>}. While
 * it runs it prints {@code progress <completed> <failed> <nanoTime>} every 100 ms (the counts read
 * after the clock), and a line {@code stop} on standard input ends the run early (each thread
 * finishes the call it is making).
 *
 * <p>Arguments: see {@link Settings#toArgs()}.
 */
public final class RegisterHistoryClient {
  private RegisterHistoryClient() {}

  /**
   * What one client process does.
   *
   * @param endpoints the node to connect through, or several ({@code host:port,host:port,...})
   * @param leaseMs the read lease; 0 means none
   * @param process a name unique in the history
   * @param threads how many calling threads
   * @param keys how many registers
   * @param callsPerThread the most calls each thread makes
   * @param durationMs the longest time the threads call for
   * @param seed the seed of the calls' random choices
   * @param historyFile where the calls are written
   * @param failoverTimeoutMs how long one call rides through layout changes before it fails (and is
   *     recorded as pending); 0 means the stream layer's default
   * @param thinkMs the longest each thread waits before a call ({@link RegisterWorkload}); 0: none
   */
  public record Settings(
      String endpoints,
      long leaseMs,
      String process,
      int threads,
      int keys,
      int callsPerThread,
      long durationMs,
      long seed,
      Path historyFile,
      long failoverTimeoutMs,
      int thinkMs) {

    /** The command-line arguments, in the order {@link #parse} reads them. */
    public List<String> toArgs() {
      return List.of(
          endpoints,
          Long.toString(leaseMs),
          process,
          Integer.toString(threads),
          Integer.toString(keys),
          Integer.toString(callsPerThread),
          Long.toString(durationMs),
          Long.toString(seed),
          historyFile.toString(),
          Long.toString(failoverTimeoutMs),
          Integer.toString(thinkMs));
    }

    /**
     * Reads {@link #toArgs()}; the failover timeout and the think time may be left out (the
     * default, none).
     */
    public static Settings parse(String[] args) {
      return new Settings(
          args[0],
          Long.parseLong(args[1]),
          args[2],
          Integer.parseInt(args[3]),
          Integer.parseInt(args[4]),
          Integer.parseInt(args[5]),
          Long.parseLong(args[6]),
          Long.parseLong(args[7]),
          Path.of(args[8]),
          args.length > 9 ? Long.parseLong(args[9]) : 0,
          args.length > 10 ? Integer.parseInt(args[10]) : 0);
    }

    StreamLogOptions logOptions() {
      StreamLogOptions log = StreamLogOptions.defaults();
      if (leaseMs > 0) {
        log = log.withReadLease(Duration.ofMillis(leaseMs));
      }
      if (failoverTimeoutMs > 0) {
        log = log.withFailoverTimeout(Duration.ofMillis(failoverTimeoutMs));
      }
      return log;
    }
  }

  public static void main(String[] args) throws Exception {
    System.out.println("clock " + System.nanoTime());
    Settings s = Settings.parse(args);
    RegisterWorkload workload =
        new RegisterWorkload(
            s.process(),
            s.threads(),
            s.keys(),
            s.callsPerThread(),
            Duration.ofMillis(s.durationMs()),
            s.thinkMs());
    try (VCorfuRuntime rt =
        VCorfuRuntime.connect(s.endpoints(), RuntimeOptions.defaults(), s.logOptions())) {
      List<Register> registers = workload.open(rt);
      System.out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); !"go".equals(line); line = in.readLine()) {
        if (line == null) {
          System.out.println("standard input closed before go");
          System.exit(2);
        }
      }
      RegisterWorkload.Progress progress = new RegisterWorkload.Progress();
      Thread stopper = new Thread(() -> awaitStop(in, progress), "stop-listener");
      stopper.setDaemon(true);
      stopper.start();
      ScheduledExecutorService reporter =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "progress-reporter");
                t.setDaemon(true);
                return t;
              });
      reporter.scheduleAtFixedRate(
          () -> {
            long at = System.nanoTime();
            System.out.println(
                "progress " + progress.completed() + " " + progress.failed() + " " + at);
          },
          100,
          100,
          TimeUnit.MILLISECONDS);
      List<Operation> history;
      try {
        history = workload.run(registers, s.seed(), progress);
      } finally {
        reporter.shutdownNow();
      }
      Files.write(
          s.historyFile(),
          history.stream().map(Operation::format).toList(),
          StandardCharsets.UTF_8);
      System.out.println("done " + history.size());
    }
    System.exit(0);
  }

  /** Stops {@code progress} when standard input says {@code stop} (or closes). */
  private static void awaitStop(BufferedReader in, RegisterWorkload.Progress progress) {
    try {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if ("stop".equals(line)) {
          break;
        }
      }
    } catch (IOException e) {
      // standard input is gone: nobody can ask for more
    }
    progress.stop();
  }
}
