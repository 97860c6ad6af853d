package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench read}: bulk stream read rate. Reads already-written streams from stream
 * address 0 to the tail the sequencer reported at the start, in batches of {@code --batch}
 * addresses, over and over until the duration ends. Thread {@code t} starts at stream {@code t} and
 * walks the streams round robin. Only data entries actually returned are counted (holes are counted
 * separately); latency is per batch call. With {@code --output json} the result is one JSON object:
 * {@code threads}, {@code conns}, {@code streams}, {@code batch}, {@code stream_addresses}, {@code
 * ops} (entries read), {@code seconds}, {@code ops_per_second}, {@code mb_per_second}, {@code
 * holes}, {@code calls}, {@code latency} (per call) and {@code stopped_early}; streams with nothing
 * to read are {@code {"mode": "read", "error": ...}}.
 */
@Command(
    name = "read",
    mixinStandardHelpOptions = true,
    description = "Bulk stream read rate (entries/s and MB/s) over written streams.")
final class ReadBench extends ClusterBench {

  @Option(names = "--stream", description = "Read this one stream.")
  String stream;

  @Option(
      names = "--streams",
      defaultValue = "1",
      description = "Read PREFIX-0 .. PREFIX-K-1 (without --stream).")
  int streams;

  @Option(
      names = "--prefix",
      defaultValue = "bench",
      description = "Stream name prefix (default ${DEFAULT-VALUE}).")
  String prefix;

  @Option(
      names = "--conns",
      defaultValue = "1",
      description =
          "Client connections the threads share; thread t uses "
              + "connection t mod C (default ${DEFAULT-VALUE}).")
  int conns;

  @Option(
      names = "--batch",
      defaultValue = "1000",
      description = "Stream addresses per read call (default ${DEFAULT-VALUE}).")
  int batch;

  @Override
  public Integer call() throws Exception {
    if (threads < 1 || streams < 1) {
      throw new IllegalArgumentException(
          "--threads and --streams must be at least 1, got " + threads + " and " + streams);
    }
    List<StreamId> ids = new ArrayList<>();
    List<String> names = new ArrayList<>();
    if (stream != null) {
      names.add(stream);
    } else {
      for (int k = 0; k < streams; k++) {
        names.add(prefix + "-" + k);
      }
    }
    for (String n : names) {
      ids.add(StreamId.of(n));
    }
    AtomicLong entries = new AtomicLong();
    AtomicLong holes = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    AtomicLong calls = new AtomicLong();
    AtomicLong failedThreads = new AtomicLong();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    List<LatencyRecorder> recorders = new ArrayList<>();
    try (NettyTransport transport = transport()) {
      List<ClusterStreamLog> logs = connectAll(transport, endpoint, conns, logOptions());
      try {
        Tails tails = logs.get(0).tails(ids).join();
        long[] tailOf = new long[ids.size()];
        long stored = 0;
        for (int i = 0; i < ids.size(); i++) {
          tailOf[i] = tails.streamTails().get(ids.get(i));
          stored += tailOf[i] + 1;
        }
        if (stored == 0) {
          String empty = "nothing to read: the " + ids.size() + " stream(s) are empty";
          output.print(BenchOutput.error("read", empty), "read: " + empty);
          return io.vcorfu.server.cli.VcorfuCli.FAILED;
        }
        long deadline = System.nanoTime() + (long) (duration * 1e9);
        List<Thread> workers = new ArrayList<>();
        long start = System.nanoTime();
        ProgressTicker progress = ProgressTicker.start("read", entries::get);
        for (int t = 0; t < threads; t++) {
          LatencyRecorder rec = new LatencyRecorder();
          recorders.add(rec);
          int first = t % ids.size();
          ClusterStreamLog log = logs.get(t % conns);
          Thread w =
              new Thread(
                  () -> {
                    int s = first;
                    long from = 0;
                    try {
                      while (System.nanoTime() < deadline) {
                        if (from > tailOf[s]) {
                          s = (s + 1) % ids.size();
                          from = 0;
                          continue;
                        }
                        long to = Math.min(tailOf[s], from + batch - 1);
                        long t0 = System.nanoTime();
                        List<StreamEntry> got = log.readStream(ids.get(s), from, to).join();
                        rec.record(System.nanoTime() - t0);
                        calls.incrementAndGet();
                        for (StreamEntry e : got) {
                          if (e.isHole()) {
                            holes.incrementAndGet();
                          } else {
                            entries.incrementAndGet();
                            bytes.addAndGet(e.payload().length);
                          }
                        }
                        from = got.isEmpty() ? to + 1 : got.get(got.size() - 1).streamAddress() + 1;
                      }
                    } catch (RuntimeException e) {
                      failedThreads.incrementAndGet();
                      firstError.compareAndSet(null, e);
                    }
                  },
                  "read-" + t);
          workers.add(w);
          w.start();
        }
        try {
          for (Thread w : workers) {
            w.join();
          }
        } finally {
          progress.close();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        ObjectNode result =
            BenchOutput.result("read")
                .put("threads", threads)
                .put("conns", conns)
                .put("streams", ids.size())
                .put("batch", batch)
                .put("stream_addresses", stored)
                .put("ops", entries.get())
                .put("seconds", seconds)
                .put("ops_per_second", entries.get() / seconds)
                .put("mb_per_second", bytes.get() / seconds / 1e6)
                .put("holes", holes.get())
                .put("calls", calls.get());
        result.set("latency", LatencyRecorder.json(recorders));
        Throwable error = firstError.get();
        BenchOutput.putStoppedEarly(
            result, failedThreads.get(), error == null ? null : error.getMessage());
        String line =
            String.format(
                "read threads %d conns %d streams %d batch %d (%d stream addresses): %d entries in"
                    + " %.1f s = %.0f entries/s (%.2f MB/s), %d holes, %d calls, call %s",
                threads,
                conns,
                ids.size(),
                batch,
                stored,
                entries.get(),
                seconds,
                entries.get() / seconds,
                bytes.get() / seconds / 1e6,
                holes.get(),
                calls.get(),
                LatencyRecorder.summary(recorders));
        output.print(
            result,
            line,
            error == null ? null : "stopped early: first error: " + error.getMessage());
      } finally {
        closeAll(logs);
      }
    }
    return 0;
  }
}
