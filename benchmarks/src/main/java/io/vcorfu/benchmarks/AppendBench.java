package io.vcorfu.benchmarks;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.runtime.stream.AppendResult;
import io.vcorfu.runtime.stream.StreamLogOptions;
import io.vcorfu.runtime.stream.internal.ClusterStreamLog;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench append}: closed-loop appenders. Each thread appends a unique printable value
 * to one of K streams (round robin), waits for the acknowledgement, records the latency, and
 * (with --ack-log) writes one flushed line per acknowledged append. A failure (the server went away)
 * stops that thread; the run still prints its summary and exits 0.
 */
@Command(name = "append", description = "Append throughput and latency against a node or cluster.")
final class AppendBench extends ClusterBench {

  @Option(names = "--streams", defaultValue = "1")
  int streams;

  @Option(names = "--size", defaultValue = "32", description = "Value size in bytes.")
  int size;

  @Option(names = "--ack-log", description = "Write STREAM_NAME STREAM_ADDRESS GLOBAL_ADDRESS VALUE per acknowledged append.")
  Path ackLog;

  @Option(names = "--prefix", defaultValue = "bench", description = "Stream name prefix (streams are PREFIX-0 .. PREFIX-K-1).")
  String prefix;

  @Option(names = "--warmup", defaultValue = "0", description = "Seconds of the same load before the measured --duration, "
      + "in this process (its JIT warms up); not counted (default ${DEFAULT-VALUE}).")
  double warmup;

  @Override
  public Integer call() throws Exception {
    BufferedWriter acks = ackLog == null ? null : Files.newBufferedWriter(ackLog, StandardCharsets.UTF_8);
    AtomicLong appended = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    List<LatencyRecorder> recorders = new ArrayList<>();
    String runId = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    try (NettyTransport transport = new NettyTransport();
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, Endpoint.parse(endpoint), StreamLogOptions.defaults())) {
      long measureFrom = System.nanoTime() + (long) (warmup * 1e9);
      long deadline = measureFrom + (long) (duration * 1e9);
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        LatencyRecorder rec = new LatencyRecorder();
        recorders.add(rec);
        int thread = t;
        Thread w =
            new Thread(
                () -> {
                  long seq = 0;
                  while (System.nanoTime() < deadline) {
                    int k = (int) ((seq * threads + thread) % streams);
                    String name = prefix + "-" + k;
                    String value = value(runId, thread, seq++);
                    long t0 = System.nanoTime();
                    try {
                      AppendResult r =
                          log.append(List.of(StreamId.of(name)), value.getBytes(StandardCharsets.US_ASCII)).join();
                      if (t0 >= measureFrom) {
                        rec.record(System.nanoTime() - t0);
                        appended.incrementAndGet();
                      }
                      if (acks != null) {
                        writeAck(acks, name + " " + r.streamAddresses().get(StreamId.of(name)) + " " + r.globalAddress() + " " + value);
                      }
                    } catch (RuntimeException e) {
                      failed.incrementAndGet();
                      firstError.compareAndSet(null, e);
                      return;
                    }
                  }
                },
                "append-" + t);
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
      double seconds = Math.max(1e-9, (System.nanoTime() - measureFrom) / 1e9);
      System.out.printf(
          "append threads %d streams %d size %d: %d appends in %.1f s = %.0f appends/s (%.2f MB/s), %s%n",
          threads, streams, size, appended.get(), seconds, appended.get() / seconds,
          appended.get() * (double) size / seconds / 1e6, LatencyRecorder.summary(recorders));
      if (firstError.get() != null) {
        System.out.println("stopped early: " + failed.get() + " appender(s) failed, first: " + firstError.get().getMessage());
      }
    } catch (RuntimeException e) {
      System.out.println("append: could not run: " + e.getMessage());
    } finally {
      if (acks != null) {
        acks.close();
      }
    }
    return 0;
  }

  private String value(String runId, int thread, long seq) {
    StringBuilder b = new StringBuilder(size);
    b.append(runId).append('-').append(thread).append('-').append(seq).append('-');
    while (b.length() < size) {
      b.append((char) ('a' + (b.length() % 26)));
    }
    b.setLength(Math.max(size, 1));
    return b.toString();
  }

  private static void writeAck(BufferedWriter acks, String line) {
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
