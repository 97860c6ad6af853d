package io.vcorfu.benchmarks;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench stream-timeline}: the paper's Figure 10 workload. Writers append to one
 * stream while a reader follows it as a local view does (asks the stream's tail, reads what is new,
 * again), and one line per second says how many appends were acknowledged, how many entries the
 * reader read, how many global addresses its degraded reads read (the stream read from the log by
 * its backpointers or by pages, while its stream chain has no replica that serves), and the
 * wall-clock time the second ended (Unix seconds). Run it across a failure of the stream's replica
 * to see degraded mode and the chain's takeover. With {@code --output json} each second is one JSON
 * object of the line's fields ({@code second}, {@code appends}, {@code reads}, {@code
 * degraded_log_reads}, {@code failures}, {@code at}) and the parameters {@code threads}, {@code
 * size} and {@code stream}. The progress line on standard error counts acknowledged appends.
 */
@Command(
    name = "stream-timeline",
    mixinStandardHelpOptions = true,
    description =
        "Appends to one stream and a reader following it, one line per second (appends, entries"
            + " read, degraded log reads): the paper's Figure 10 across a stream replica failure.")
final class StreamTimelineBench extends ClusterBench {
  @Option(
      names = "--size",
      defaultValue = "32",
      description = "Bytes per appended value (default ${DEFAULT-VALUE}).")
  int size;

  @Option(
      names = "--stream",
      defaultValue = "figure-10",
      description = "The stream appended to and read (default ${DEFAULT-VALUE}).")
  String stream;

  @Override
  public Integer call() throws Exception {
    if (size < 1 || threads < 1 || !(duration > 0)) {
      throw new IllegalArgumentException("--size, --threads and --duration must be positive");
    }
    StreamId s = StreamId.of(stream);
    byte[] value = "x".repeat(size).getBytes(StandardCharsets.UTF_8);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong appends = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    try (NettyTransport transport = transport()) {
      List<ClusterStreamLog> logs = connectAll(transport, endpoint, threads + 1, logOptions());
      List<Thread> workers = new ArrayList<>();
      ProgressTicker progress = null;
      try {
        for (int t = 0; t < threads; t++) {
          ClusterStreamLog log = logs.get(t);
          workers.add(
              start(
                  "writer-" + t,
                  () -> {
                    while (!stop.get()) {
                      try {
                        log.append(List.of(s), value).get(60, TimeUnit.SECONDS);
                        appends.incrementAndGet();
                      } catch (Exception e) {
                        failures.incrementAndGet();
                      }
                    }
                  }));
        }
        ClusterStreamLog reader = logs.get(threads);
        workers.add(
            start(
                "reader",
                () -> {
                  long next = 0;
                  while (!stop.get()) {
                    try {
                      long tail =
                          reader
                              .tails(List.of(s))
                              .get(60, TimeUnit.SECONDS)
                              .streamTails()
                              .getOrDefault(s, -1L);
                      if (tail < next) {
                        Thread.sleep(1);
                        continue;
                      }
                      // Everything new at once, as a local view syncing to the tail does.
                      List<StreamEntry> got =
                          reader.readStream(s, next, tail).get(60, TimeUnit.SECONDS);
                      next += got.size();
                      reads.addAndGet(got.size());
                    } catch (InterruptedException e) {
                      return;
                    } catch (Exception e) {
                      failures.incrementAndGet();
                    }
                  }
                }));
        long start = System.nanoTime();
        long last = (long) Math.ceil(duration);
        progress =
            ProgressTicker.start(
                "stream-timeline", start, TimeUnit.SECONDS.toNanos(last), appends::get);
        long lastAppends = 0;
        long lastReads = 0;
        long lastDegraded = 0;
        for (long second = 1; second <= last; second++) {
          long due = start + TimeUnit.SECONDS.toNanos(second);
          long wait = due - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
          long a = appends.get();
          long r = reads.get();
          long d = reader.degradedReads();
          long f = failures.get();
          long atMillis = System.currentTimeMillis();
          double at = atMillis / 1000.0;
          if (second == last) {
            progress.close();
          }
          output.print(
              BenchOutput.result("stream-timeline")
                  .put("threads", threads)
                  .put("size", size)
                  .put("stream", stream)
                  .put("second", second)
                  .put("appends", a - lastAppends)
                  .put("reads", r - lastReads)
                  .put("degraded_log_reads", d - lastDegraded)
                  .put("failures", f)
                  .put("at", BigDecimal.valueOf(atMillis, 3)),
              String.format(
                  "second %d appends %d reads %d degraded_log_reads %d failures %d at %.3f",
                  second, a - lastAppends, r - lastReads, d - lastDegraded, f, at));
          lastAppends = a;
          lastReads = r;
          lastDegraded = d;
        }
      } finally {
        if (progress != null) {
          progress.close();
        }
        stop.set(true);
        for (Thread w : workers) {
          w.join(TimeUnit.SECONDS.toMillis(70));
        }
        closeAll(logs);
      }
    }
    return 0;
  }

  private static Thread start(String name, Runnable body) {
    Thread t = new Thread(body, "stream-timeline-" + name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}
