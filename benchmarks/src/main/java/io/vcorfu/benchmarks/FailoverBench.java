package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.ClientOptions;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench failover}: how long a replicated store stops acknowledging writes when one of
 * its servers is killed with SIGKILL (or paused with SIGSTOP, {@code --signal STOP}). One client
 * thread writes values of {@code --size} bytes one after another and stamps every write when it is
 * issued and when it is acknowledged ({@link System#nanoTime}); after {@code --before} seconds of
 * acknowledged writes this process asks the store which server plays {@code --kill} and sends
 * SIGKILL to that server's process ({@code --pids}, in the order of {@code --endpoint}), stamping
 * the kill on the same clock; it waits for the first acknowledged write issued after the kill (at
 * most {@code --give-up} seconds), goes on for {@code --after} seconds and prints one line:
 *
 * <pre>
 * failover db D kill ROLE signal KILL|STOP endpoint H:P pid N size B kill_to_first_ack_ms X
 * longest_gap_ms Y longest_gap_start_ms Z last_ack_before_kill_ms W acks_before N acks_after N
 * errors N kill_at HH:MM:SS.mmm
 * </pre>
 *
 * (see {@link FailoverTimeline}; {@code none} where a figure does not exist). A write that fails is
 * counted in {@code errors}; the writer waits 10 ms and writes the next one. Exits 0 when a write
 * issued after the kill was acknowledged, 1 otherwise. While the writer runs, a progress line per
 * second on standard error counts its acknowledged writes. With {@code --output json} the result is
 * one JSON object of the line's fields (null where the text says {@code none}) and {@code
 * first_error}; a run with no write acknowledged before the kill is {@code {"mode": "failover",
 * "error": ...}} on standard output (in text that line goes to standard error).
 *
 * <p>Both stores run through the same loop. vcorfu: one {@code ClusterStreamLog} (its failover
 * timeout is {@code --failover-timeout}), appending to one stream. etcd: one jetcd client over
 * every member, one new key per put, each put abandoned after {@code --request-timeout-ms} (see
 * {@link EtcdFailoverTarget}).
 */
@Command(
    name = "failover",
    mixinStandardHelpOptions = true,
    description =
        "Time from kill -9 of one server (a role: vcorfu sequencer or replica, etcd leader or"
            + " follower) to the first acknowledged write after it, one sequential writer.",
    sortOptions = false)
public final class FailoverBench implements Callable<Integer> {
  private static final long ERROR_PAUSE_MS = 10;
  // The kill's local wall-clock time, in the format of the nodes' log lines, to find it in them.
  private static final DateTimeFormatter KILL_CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  @Mixin BenchOutput output = new BenchOutput();

  @Option(names = "--db", defaultValue = "vcorfu", description = "vcorfu or etcd.")
  String db;

  @Option(
      names = "--signal",
      defaultValue = "KILL",
      description =
          "KILL (kill -9, the default) or STOP: pause the process (kill -STOP), as a partitioned"
              + " or stalled server looks, and resume it (kill -CONT) once the measurement ends.")
  String signal;

  @Option(
      names = "--pause-s",
      defaultValue = "0",
      description =
          "With --signal STOP: resume the process (kill -CONT) this many seconds after pausing it"
              + " and measure on through the resume (0, the default: resume once the measurement"
              + " ends).")
  double pauseSeconds;

  @Option(
      names = "--endpoint",
      required = true,
      paramLabel = "H:P[,H:P...]",
      description = "Every server of the cluster, separated by commas.")
  String endpoint;

  @Option(
      names = "--pids",
      required = true,
      paramLabel = "PID[,PID...]",
      description = "The process id of each server, in the order of --endpoint.")
  String pids;

  @Option(
      names = "--kill",
      required = true,
      description = "The role to kill: vcorfu sequencer or replica; etcd leader or follower.")
  String kill;

  @Option(
      names = "--before",
      defaultValue = "3",
      description = "Seconds of acknowledged writes before the kill (default ${DEFAULT-VALUE}).")
  double before;

  @Option(
      names = "--after",
      defaultValue = "2",
      description =
          "Seconds of writes after the first acknowledgement after the kill (default"
              + " ${DEFAULT-VALUE}).")
  double after;

  @Option(
      names = "--give-up",
      defaultValue = "60",
      description =
          "Seconds to wait for an acknowledgement after the kill (default ${DEFAULT-VALUE}).")
  double giveUp;

  @Option(
      names = "--size",
      defaultValue = "1024",
      description = "Bytes per value (default ${DEFAULT-VALUE}).")
  int size;

  @Option(
      names = "--failover-timeout",
      defaultValue = "30",
      description =
          "vcorfu: seconds an append keeps retrying through a layout change (default"
              + " ${DEFAULT-VALUE}).")
  double failoverTimeout;

  @Option(
      names = "--request-timeout-ms",
      defaultValue = "1000",
      description =
          "etcd: milliseconds after which a put is abandoned and the next sent (default"
              + " ${DEFAULT-VALUE}).")
  long requestTimeoutMs;

  @Option(
      names = "--vcorfu-request-timeout-ms",
      defaultValue = "0",
      description =
          "vcorfu: milliseconds after which the client gives up waiting for one request's answer"
              + " and goes on with its failover (0, the default: the client's own default).")
  long vcorfuRequestTimeoutMs;

  @Option(
      names = "--ack-times",
      paramLabel = "FILE",
      description =
          "Write ISSUED_MS ACKED_MS per acknowledged write, relative to the kill, to FILE.")
  Path ackTimes;

  @Override
  public Integer call() throws Exception {
    if (!(before > 0)
        || !(after >= 0)
        || !(giveUp > 0)
        || !(pauseSeconds >= 0)
        || size < 1
        || requestTimeoutMs < 1) {
      throw new IllegalArgumentException(
          "--before and --give-up must be positive, --after 0 or more, --size and"
              + " --request-timeout-ms at least 1");
    }
    List<Long> pidList = parsePids(pids);
    if (!signal.equals("KILL") && !signal.equals("STOP")) {
      throw new IllegalArgumentException("--signal is KILL or STOP, got '" + signal + "'");
    }
    boolean paused = signal.equals("STOP");
    try (FailoverTarget target = open()) {
      if (target.endpoints().size() != pidList.size()) {
        throw new IllegalArgumentException(
            "--pids names "
                + pidList.size()
                + " processes for "
                + target.endpoints().size()
                + " endpoints");
      }
      if (!target.roles().contains(kill)) {
        throw new IllegalArgumentException(
            db + " has no role '" + kill + "'; the roles are " + target.roles());
      }
      Writer writer = new Writer(target);
      Thread thread = new Thread(writer, "failover-writer");
      thread.start();
      ProgressTicker progress = ProgressTicker.start("failover", writer::count);
      try {
        if (!awaitUntil(() -> writer.count() > 0, seconds(giveUp))) {
          progress.close();
          String noWrite = "no write was acknowledged before the kill";
          output.print(
              output.json() ? System.out : System.err,
              BenchOutput.error("failover", noWrite),
              "failover: " + noWrite);
          return 1;
        }
        Thread.sleep((long) (before * 1000));
        int victim = target.victim(kill);
        long pid = pidList.get(victim);
        ProcessHandle process =
            ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .orElseThrow(() -> new IllegalStateException("process " + pid + " is not running"));
        LocalTime killClock = LocalTime.now();
        long killNanos = System.nanoTime();
        if (paused) {
          signal(pid, "STOP");
        } else {
          process.destroyForcibly();
        }
        boolean resumed = false;
        boolean measured = false;
        if (paused && pauseSeconds > 0) {
          // The pause ends at its set time whatever the writer does meanwhile.
          long resumeAt = killNanos + seconds(pauseSeconds);
          boolean recoveredFirst =
              awaitUntil(() -> writer.lastIssuedNanos() >= killNanos, resumeAt - System.nanoTime());
          long left = resumeAt - System.nanoTime();
          if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
          }
          signal(pid, "CONT");
          resumed = true;
          if (recoveredFirst) {
            Thread.sleep((long) (after * 1000));
            measured = true;
          }
        }
        if (!measured && awaitUntil(() -> writer.lastIssuedNanos() >= killNanos, seconds(giveUp))) {
          Thread.sleep((long) (after * 1000));
        }
        writer.stop();
        thread.join(TimeUnit.SECONDS.toMillis((long) failoverTimeout + 10));
        progress.close();
        if (paused && !resumed) {
          signal(pid, "CONT");
        }
        Writer.Snapshot s = writer.snapshot();
        FailoverTimeline timeline =
            FailoverTimeline.of(
                s.issued(), s.acked(), s.count(), killNanos, killNanos - seconds(before));
        ObjectNode result =
            BenchOutput.result("failover")
                .put("db", db)
                .put("kill", kill)
                .put("signal", signal)
                .put("endpoint", target.endpoints().get(victim))
                .put("pid", pid)
                .put("size", size);
        timeline.putFields(result);
        result
            .put("errors", writer.errors())
            .put("kill_at", KILL_CLOCK.format(killClock))
            .put("first_error", writer.firstError());
        output.print(
            result,
            String.format(
                Locale.ROOT,
                "failover db %s kill %s signal %s endpoint %s pid %d size %d %s errors %d"
                    + " kill_at %s",
                db,
                kill,
                signal,
                target.endpoints().get(victim),
                pid,
                size,
                timeline.fields(),
                writer.errors(),
                KILL_CLOCK.format(killClock)),
            writer.firstError() == null ? null : "first error: " + writer.firstError());
        if (ackTimes != null) {
          writeAckTimes(s, killNanos);
        }
        return timeline.recovered() ? 0 : 1;
      } finally {
        progress.close();
        writer.stop();
        thread.interrupt();
      }
    }
  }

  /**
   * Sends {@code kill -NAME pid} (STOP, CONT, KILL: a failure or a pause to measure) and waits for
   * {@code kill}; fails if it cannot. Also the benchmark suites' way to pause a node.
   */
  public static void signal(long pid, String name) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
    if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("kill -" + name + " " + pid + " failed");
    }
  }

  private FailoverTarget open() {
    StreamLogOptions options =
        StreamLogOptions.defaults()
            .withFailoverTimeout(Duration.ofMillis((long) (failoverTimeout * 1000)));
    if (vcorfuRequestTimeoutMs > 0) {
      options =
          options.withRpc(
              ClientOptions.defaults()
                  .withRequestTimeout(Duration.ofMillis(vcorfuRequestTimeoutMs)));
    }
    return switch (db) {
      case "vcorfu" -> new VcorfuFailoverTarget(endpoint, size, options);
      case "etcd" -> new EtcdFailoverTarget(endpoint, size, requestTimeoutMs);
      default -> throw new IllegalArgumentException("--db must be vcorfu or etcd, got " + db);
    };
  }

  static List<Long> parsePids(String text) {
    List<Long> out = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      try {
        long pid = Long.parseLong(part.strip());
        if (pid <= 1) {
          throw new NumberFormatException();
        }
        out.add(pid);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--pids must be process ids separated by commas, got '" + text + "'", e);
      }
    }
    return out;
  }

  private void writeAckTimes(Writer.Snapshot s, long killNanos) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(ackTimes, StandardCharsets.US_ASCII)) {
      for (int i = 0; i < s.count(); i++) {
        w.write(
            String.format(
                Locale.ROOT,
                "%.3f %.3f%n",
                (s.issued()[i] - killNanos) / 1e6,
                (s.acked()[i] - killNanos) / 1e6));
      }
    }
  }

  private static long seconds(double s) {
    return (long) (s * 1e9);
  }

  /** Polls {@code condition} every millisecond for up to {@code nanos}; true once it holds. */
  private static boolean awaitUntil(java.util.function.BooleanSupplier condition, long nanos)
      throws InterruptedException {
    long deadline = System.nanoTime() + nanos;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  /**
   * The sequential writer. Its loop runs on one thread; {@link #count}, {@link #lastIssuedNanos},
   * {@link #snapshot} and {@link #stop} may be called from any other. The stamp arrays are guarded
   * by {@code this}.
   */
  private static final class Writer implements Runnable {
    record Snapshot(long[] issued, long[] acked, int count) {}

    private final FailoverTarget target;
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private volatile boolean stopped;
    private volatile long lastIssued = Long.MIN_VALUE;
    private long[] issued = new long[1 << 14];
    private long[] acked = new long[1 << 14];
    private int count;

    Writer(FailoverTarget target) {
      this.target = target;
    }

    @Override
    public void run() {
      long seq = 0;
      while (!stopped) {
        long t0 = System.nanoTime();
        try {
          target.write(seq++);
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          errors.incrementAndGet();
          firstError.compareAndSet(null, describe(e));
          try {
            Thread.sleep(ERROR_PAUSE_MS);
          } catch (InterruptedException stop) {
            return;
          }
          continue;
        }
        record(t0, System.nanoTime());
      }
    }

    private synchronized void record(long t0, long t1) {
      if (count == issued.length) {
        issued = Arrays.copyOf(issued, count * 2);
        acked = Arrays.copyOf(acked, count * 2);
      }
      issued[count] = t0;
      acked[count] = t1;
      count++;
      lastIssued = t0;
    }

    synchronized int count() {
      return count;
    }

    /** When the newest acknowledged write was issued. */
    long lastIssuedNanos() {
      return lastIssued;
    }

    synchronized Snapshot snapshot() {
      return new Snapshot(Arrays.copyOf(issued, count), Arrays.copyOf(acked, count), count);
    }

    void stop() {
      stopped = true;
    }

    long errors() {
      return errors.get();
    }

    String firstError() {
      return firstError.get();
    }

    private static String describe(Throwable e) {
      Throwable t = e;
      while ((t instanceof java.util.concurrent.CompletionException
              || t instanceof java.util.concurrent.ExecutionException)
          && t.getCause() != null) {
        t = t.getCause();
      }
      return t.getClass().getSimpleName() + ": " + t.getMessage();
    }
  }
}
