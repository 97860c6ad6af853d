package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.AppendOutcomeUnknownException;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.layout.Failover;
import io.vcorfu.protocol.netty.NettyTransport;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench append}: closed-loop appenders. Each thread appends a unique printable value
 * to one of K streams (round robin), waits for the acknowledgement, records the latency, and (with
 * --ack-log) writes one flushed line per acknowledged append and prints its own progress line every
 * second (without it, {@link ProgressTicker}'s on standard error). The clients ride through layout
 * changes (a node gone, the sequencer moved) for {@code --failover-timeout}; an append that still
 * fails after it is counted as an error and the thread goes on, so a run keeps going across a
 * failover and shows it as a pause. An error no layout change cures (a refused entry) stops that
 * thread. The run prints its summary and exits 0 either way; a run that cannot start (no node
 * answers) prints {@code vcorfu: WHY} on standard error (and {@code {"mode", "error"}} with {@code
 * --output json}) and exits 1.
 *
 * <p>By default the threads share one client (one connection per node), as the threads of an
 * application do; {@code --conns C} gives them C independent clients, for comparisons with tools
 * that open one connection per client (etcd's benchmark with {@code --conns}, redis-benchmark). The
 * warm line covers {@code --duration} seconds after {@code --warmup} seconds of load; {@code --cold
 * S} adds a cold line (the first S seconds of load) and a per-second timeline, see {@link
 * LoadWindows}. With {@code --output json} the result is one JSON object ({@link
 * LoadWindows#putFigures} plus {@code threads}, {@code conns}, {@code streams}, {@code size},
 * {@code mb_per_second}, {@code errors}, {@code first_error} and {@code stopped_early}).
 */
@Command(
    name = "append",
    mixinStandardHelpOptions = true,
    description = "Append throughput and latency against a node or cluster.")
final class AppendBench extends ClusterBench {

  @Option(
      names = "--streams",
      defaultValue = "1",
      description =
          "Streams the appends go to, in turn (PREFIX-0 .. PREFIX-K-1; default ${DEFAULT-VALUE}).")
  int streams;

  @Option(names = "--size", defaultValue = "32", description = "Value size in bytes.")
  int size;

  @Option(
      names = "--ack-log",
      description =
          "Write STREAM_NAME STREAM_ADDRESS GLOBAL_ADDRESS VALUE per acknowledged append, and print"
              + " 'progress SECONDS acked N total N errors N p99_ms X' every second (X: the 99th"
              + " percentile latency of that second's acknowledged appends, - when none) on"
              + " standard output (on standard error with --output json), in place of the line"
              + " 'progress append SECONDS ops N total M' on standard error.")
  Path ackLog;

  @Option(
      names = "--prefix",
      defaultValue = "bench",
      description = "Stream name prefix (streams are PREFIX-0 .. PREFIX-K-1).")
  String prefix;

  @Option(
      names = "--warmup",
      defaultValue = "0",
      description =
          "Seconds of the same load before the measured --duration, in this process (its JIT warms"
              + " up); not counted in the warm figure (default ${DEFAULT-VALUE}).")
  double warmup;

  @Option(
      names = "--cold",
      defaultValue = "0",
      description =
          "Also report the first S seconds of load on their own (a fresh client JVM: the cold"
              + " figure), and the appends of every second (default ${DEFAULT-VALUE}: no cold"
              + " line).")
  double cold;

  @Option(
      names = "--conns",
      defaultValue = "1",
      description =
          "Client connections the threads share; thread t uses connection t mod C (default"
              + " ${DEFAULT-VALUE}: one client, one connection, as an application has).")
  int conns;

  @Option(
      names = "--callers",
      defaultValue = "threads",
      converter = CallerStyle.Converter.class,
      description =
          "How the --threads callers run: 'threads' (one thread per caller, blocked on each append,"
              + " as a servlet-style application waits) or 'loop' (each caller's next append is"
              + " sent from the thread that completed its last one, as an event-loop application or"
              + " a goroutine-based client such as etcd's benchmark runs; no thread is parked or"
              + " woken per append). Default ${DEFAULT-VALUE}.")
  CallerStyle callers;

  /** How the callers of {@code --callers} run. */
  enum CallerStyle {
    THREADS,
    LOOP;

    /** Reads {@code threads} or {@code loop}. */
    static final class Converter implements CommandLine.ITypeConverter<CallerStyle> {
      @Override
      public CallerStyle convert(String value) {
        return switch (value) {
          case "threads" -> THREADS;
          case "loop" -> LOOP;
          default ->
              throw new CommandLine.TypeConversionException(
                  "expected 'threads' or 'loop', got '" + value + "'");
        };
      }
    }

    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description =
          "At most this many appends a second in all, spread evenly over the --threads callers"
              + " (each waits for its next turn, and a caller that fell behind does not catch up"
              + " in a burst); with --callers threads only. For a bounded load beside something"
              + " else (a failover test, a soak), not for latency at an offered rate: a caller"
              + " still waits for each append. Default ${DEFAULT-VALUE}: as fast as they can.")
  double rate;

  @Option(
      names = "--cost",
      description =
          "Also print what the warm window cost the whole machine per append (processor time,"
              + " TCP segments, context switches; and fsyncs and requests from the nodes' /metrics"
              + " pages given with --metrics): see 'vcorfu bench cost'.")
  boolean cost;

  @Option(
      names = "--metrics",
      split = ",",
      description = "The nodes' /metrics pages, comma-separated, for --cost.")
  List<java.net.URI> metrics = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    if (threads < 1 || streams < 1 || size < 1) {
      throw new IllegalArgumentException(
          "--threads, --streams and --size must be at least 1, got "
              + threads
              + ", "
              + streams
              + " and "
              + size);
    }
    if (rate < 0 || Double.isNaN(rate) || Double.isInfinite(rate)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--rate must be a number of appends a second, 0 for no limit, got " + rate);
    }
    if (rate > 0 && callers == CallerStyle.LOOP) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--rate paces threads that wait for their turn: give --callers threads with it");
    }
    BufferedWriter acks =
        ackLog == null ? null : Files.newBufferedWriter(ackLog, StandardCharsets.UTF_8);
    AtomicLong acked = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong stopped = new AtomicLong();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    AtomicReference<Throwable> firstStop = new AtomicReference<>();
    String runId = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    String label =
        String.format(
            "append threads %d conns %d streams %d size %d", threads, conns, streams, size);
    try (NettyTransport transport = transport()) {
      List<ClusterStreamLog> logs = connectAll(transport, endpoint, conns, logOptions());
      secondLatencies = acks == null ? null : new java.util.concurrent.ConcurrentLinkedQueue<>();
      ScheduledExecutorService progress =
          acks == null ? null : progress(acked, errors, secondLatencies);
      ProgressTicker ticker = null;
      try {
        LoadWindows windows = new LoadWindows(cold, warmup, duration);
        WarmCost warmCost =
            cost
                ? WarmCost.start(
                    CostMeter.vcorfu(metrics), windows.loadStart(), cold, warmup, duration)
                : null;
        if (progress == null) {
          ticker = ProgressTicker.start("append", windows::units);
        }
        AppendCallers load =
            new AppendCallers(
                this, windows, logs, runId, acks, acked, errors, stopped, firstError, firstStop);
        if (callers == CallerStyle.LOOP) {
          load.runAsLoop();
        } else {
          load.runOnThreads();
        }
        stop(progress, ticker);
        double seconds = windows.warmSeconds();
        long appended = windows.warmUnits();
        String coldLine = windows.coldLine(label, "appends");
        ObjectNode result =
            BenchOutput.result("append")
                .put("threads", threads)
                .put("conns", conns)
                .put("streams", streams)
                .put("size", size);
        windows.putFigures(result);
        result.put("mb_per_second", appended * (double) size / seconds / 1e6);
        result.put("errors", errors.get()).put("first_error", message(firstError.get()));
        BenchOutput.putStoppedEarly(result, stopped.get(), message(firstStop.get()));
        String costLine = warmCost == null ? null : warmCost.line(CostMeter.APPEND_WARM, appended);
        if (costLine != null) {
          result.put("cost", costLine);
        }
        output.print(
            result,
            coldLine,
            String.format(
                "%s: %d appends in %.1f s = %.0f appends/s (%.2f MB/s), %s",
                label,
                appended,
                seconds,
                appended / seconds,
                appended * (double) size / seconds / 1e6,
                windows.warmLatency()),
            coldLine == null ? null : windows.timelineLine(label, "appends"),
            errors.get() == 0
                ? null
                : "errors: "
                    + errors.get()
                    + " append(s) failed while the cluster did not answer, first: "
                    + firstError.get().getMessage(),
            firstStop.get() == null
                ? null
                : "stopped early: "
                    + stopped.get()
                    + " appender(s) failed, first: "
                    + firstStop.get().getMessage(),
            costLine);
      } finally {
        stop(progress, ticker);
        closeAll(logs);
      }
    } finally {
      if (acks != null) {
        acks.close();
      }
    }
    return 0;
  }

  /**
   * Stops the progress lines, those of --ack-log or the ticker, and waits until the last one is
   * printed (none follows the result).
   */
  private static void stop(ScheduledExecutorService progress, ProgressTicker ticker)
      throws InterruptedException {
    if (progress != null) {
      progress.shutdownNow();
      progress.awaitTermination(10, TimeUnit.SECONDS);
    }
    if (ticker != null) {
      ticker.close();
    }
  }

  private static String message(Throwable t) {
    return t == null ? null : t.getMessage();
  }

  /** Latencies of the appends acknowledged since the last progress line (with --ack-log). */
  java.util.concurrent.ConcurrentLinkedQueue<Long> secondLatencies;

  /**
   * Prints {@code progress SECONDS acked N_THIS_SECOND total N errors N p99_ms X} once a second, so
   * a pause (a failover) shows as seconds with nothing acknowledged, and a slowdown as a higher
   * p99: on standard output in text, on standard error with {@code --output json} (standard output
   * holds only results then).
   */
  private ScheduledExecutorService progress(
      AtomicLong acked, AtomicLong errors, java.util.Queue<Long> latencies) {
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "append-progress");
              t.setDaemon(true);
              return t;
            });
    long[] last = new long[2]; // seconds printed, total at the last line; confined to the timer
    timer.scheduleAtFixedRate(
        () -> {
          long total = acked.get();
          last[0]++;
          List<Long> second = new ArrayList<>();
          for (Long l = latencies.poll(); l != null; l = latencies.poll()) {
            second.add(l);
          }
          second.sort(null);
          String p99 =
              second.isEmpty()
                  ? "-"
                  : String.format(
                      java.util.Locale.ROOT,
                      "%.2f",
                      second.get((int) Math.min(second.size() - 1, second.size() * 0.99)) / 1e6);
          (output.json() ? System.err : System.out)
              .println(
                  "progress "
                      + last[0]
                      + " acked "
                      + (total - last[1])
                      + " total "
                      + total
                      + " errors "
                      + errors.get()
                      + " p99_ms "
                      + p99);
          last[1] = total;
        },
        1,
        1,
        TimeUnit.SECONDS);
    return timer;
  }

  /**
   * True for a failure the client had already retried through its failover timeout (a node gone or
   * silent, a layout that did not settle, an append whose outcome stayed unknown): the cluster may
   * recover, so the load goes on. Anything else would fail every append alike.
   */
  static boolean outlastsFailover(Throwable cause) {
    return Failover.retryable(cause, true) || cause instanceof AppendOutcomeUnknownException;
  }

  static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * The bytes every value starts from: {@code max(size, 1)} letters, {@code a} to {@code z} by
   * position, built once so that an append costs its caller a copy, not a loop.
   */
  static byte[] valueTemplate(int size) {
    byte[] t = new byte[Math.max(size, 1)];
    for (int i = 0; i < t.length; i++) {
      t[i] = (byte) ('a' + (i % 26));
    }
    return t;
  }

  /**
   * The value of append {@code seq} of caller {@code thread}: {@code RUN-THREAD-SEQ-} over the
   * {@link #valueTemplate} (cut to its length), so every append of a run is distinct.
   */
  static byte[] value(byte[] template, String runId, int thread, long seq) {
    byte[] v = template.clone();
    String prefix = runId + '-' + thread + '-' + seq + '-';
    int n = Math.min(prefix.length(), v.length);
    for (int i = 0; i < n; i++) {
      v[i] = (byte) prefix.charAt(i);
    }
    return v;
  }

  static void writeAck(BufferedWriter acks, String line) {
    synchronized (acks) {
      try {
        acks.write(line);
        acks.newLine();
        acks.flush();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
