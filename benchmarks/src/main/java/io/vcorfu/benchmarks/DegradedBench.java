package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench degraded}: what a degraded read (a stream read from the log replicas by its
 * backpointers, as while its stream replicas are gone) costs, after the paper's Figure 9. For each
 * hole rate it writes a fresh stream of {@code --entries} entries interleaved with {@code --others}
 * entries of other streams per entry, and leaves that fraction of the stream's tokens unwritten
 * (each becomes a hole in the stream and in the log); then it reads the stream from the log ({@code
 * ClusterStreamLog.readStreamFromLog}) and from its stream replica, checks that both give the same
 * entries, and reports the global addresses the degraded read scanned per stream entry, and both
 * reads' time. While it measures a hole rate it prints a progress line per second on standard error
 * ({@link ProgressTicker}; {@code ops}: the stream's entries and unwritten tokens and the other
 * streams' entries written, so the reads show as seconds without any). With {@code --output json}
 * each hole rate's result is one JSON object of the text line's fields ({@code globals A-B} as
 * {@code first_global} and {@code last_global}).
 */
@Command(
    name = "degraded",
    mixinStandardHelpOptions = true,
    description =
        "Cost of degraded reads (a stream read from the log by its backpointers) per hole rate.")
final class DegradedBench extends ClusterBench {
  @Option(
      names = "--entries",
      defaultValue = "2000",
      description = "Stream entries written per hole rate (default ${DEFAULT-VALUE}).")
  int entries;

  @Option(
      names = "--others",
      defaultValue = "3",
      description =
          "Entries of other streams between two of the stream's (default ${DEFAULT-VALUE}).")
  int others;

  @Option(
      names = "--hole-rates",
      defaultValue = "0,0.01,0.05,0.1",
      split = ",",
      description = "Fractions of the stream's tokens left unwritten (default ${DEFAULT-VALUE}).")
  List<Double> holeRates;

  @Option(names = "--seed", defaultValue = "1", description = "Random seed.")
  long seed;

  @Override
  public Integer call() throws Exception {
    Random random = new Random(seed);
    byte[] value = "degraded-bench-value".getBytes(StandardCharsets.UTF_8);
    try (NettyTransport transport = transport()) {
      ClusterStreamLog log = connectAll(transport, endpoint, 1, logOptions()).get(0);
      try {
        String run = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
        for (double rate : holeRates) {
          AtomicLong written = new AtomicLong();
          ProgressTicker progress = ProgressTicker.start("degraded", written::get);
          try {
            StreamId stream = StreamId.of("degraded-" + run + "-" + rate);
            List<StreamId> noise = new ArrayList<>();
            for (int o = 0; o < Math.max(1, others); o++) {
              noise.add(StreamId.of("degraded-" + run + "-" + rate + "-other-" + o));
            }
            long firstGlobal = log.tails(List.of()).get(30, TimeUnit.SECONDS).globalTail() + 1;
            int holes = 0;
            for (int i = 0; i < entries; i++) {
              if (random.nextDouble() < rate) {
                log.ops().token(List.of(stream), null, 1).get(30, TimeUnit.SECONDS);
                holes++;
              } else {
                log.append(List.of(stream), value).get(30, TimeUnit.SECONDS);
              }
              written.incrementAndGet();
              for (int o = 0; o < others; o++) {
                log.append(List.of(noise.get(o)), value).get(30, TimeUnit.SECONDS);
                written.incrementAndGet();
              }
            }
            long tail =
                log.tails(List.of(stream)).get(30, TimeUnit.SECONDS).streamTails().get(stream);
            // Decide the unwritten tokens' global addresses first (they become holes), as readers
            // of the log would have long before a stream replica is lost; what is measured is the
            // walk.
            long lastGlobal = log.tails(List.of()).get(30, TimeUnit.SECONDS).globalTail();
            long d0 = System.nanoTime();
            log.decidedGlobal(firstGlobal, lastGlobal).get(300, TimeUnit.SECONDS);
            long decideMs = (System.nanoTime() - d0) / 1_000_000;
            long t0 = System.nanoTime();
            List<StreamEntry> normal = log.readStream(stream, 0, tail).get(300, TimeUnit.SECONDS);
            long t1 = System.nanoTime();
            long scannedBefore = log.degradedReads();
            List<StreamEntry> degraded =
                log.readStreamFromLog(stream, 0, tail).get(600, TimeUnit.SECONDS);
            long t2 = System.nanoTime();
            long scanned = log.degradedReads() - scannedBefore;
            boolean same = describe(normal).equals(describe(degraded));
            ObjectNode result =
                BenchOutput.result("degraded")
                    .put("hole_rate", rate)
                    .put("entries", tail + 1)
                    .put("holes", holes)
                    .put("others_per_entry", others)
                    .put("scanned", scanned)
                    .put("scanned_per_entry", scanned / (double) (tail + 1))
                    .put("degraded_ms", (t2 - t1) / 1e6)
                    .put("replica_ms", (t1 - t0) / 1e6)
                    .put("decide_ms", decideMs)
                    .put("first_global", firstGlobal)
                    .put("last_global", lastGlobal)
                    .put("same", same);
            progress.close();
            output.print(
                result,
                String.format(
                    "degraded hole_rate %.2f entries %d holes %d others_per_entry %d scanned %d"
                        + " scanned_per_entry %.2f degraded_ms %.0f replica_ms %.0f decide_ms %d"
                        + " globals %d-%d same %s",
                    rate,
                    tail + 1,
                    holes,
                    others,
                    scanned,
                    scanned / (double) (tail + 1),
                    (t2 - t1) / 1e6,
                    (t1 - t0) / 1e6,
                    decideMs,
                    firstGlobal,
                    lastGlobal,
                    same));
            if (!same) {
              return 1;
            }
          } finally {
            progress.close();
          }
        }
      } finally {
        log.close();
      }
    }
    return 0;
  }

  private static List<String> describe(List<StreamEntry> entries) {
    List<String> out = new ArrayList<>();
    for (StreamEntry e : entries) {
      out.add(e.streamAddress() + (e.isHole() ? "h" : "@" + e.globalAddress()));
    }
    return out;
  }
}
