package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.sequencer.SequencerService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.BiFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench tokens}: tokens per second from the sequencer. Each thread keeps {@code
 * --pipeline} requests in flight, each asking for {@code --batch} consecutive tokens for one of K
 * streams. Thread {@code t} sends on connection {@code t mod --conns}. {@code --in-process} drives
 * a sequencer in this JVM instead of a server.
 *
 * <p>To compare with {@code redis-benchmark -t incr -c C [-P P]} (one counter increment per
 * request, C connections, P requests in flight per connection) use {@code --threads C --conns C
 * --pipeline P --batch 1}: the same requests in flight on the same number of connections. A {@code
 * --batch} above 1 hands out several tokens per request, which INCR does not, so its rate is not
 * comparable with INCR's.
 *
 * <p>Prints the warm line ({@code tokens ...}: the {@code --duration} seconds after {@code
 * --warmup} seconds of load), and with {@code --cold S} a cold line (the first S seconds of load)
 * and a timeline (tokens in each second of load); see {@link LoadWindows}. Latency is per request.
 * With {@code --output json} the result is one JSON object: {@code where} ({@code loopback} or
 * {@code in-process}), {@code threads}, {@code conns}, {@code streams}, {@code batch}, {@code
 * pipeline} and {@link LoadWindows#putFigures}'s fields ({@code ops} counts tokens).
 */
@Command(
    name = "tokens",
    mixinStandardHelpOptions = true,
    description = "Sequencer token throughput.")
final class TokensBench extends ClusterBench {

  @Option(
      names = "--streams",
      defaultValue = "1",
      description =
          "Streams the token requests name, one per request, in turn (tokens-0 .. tokens-K-1;"
              + " default ${DEFAULT-VALUE}).")
  int streams;

  @Option(
      names = "--batch",
      defaultValue = "1",
      description = "Tokens per request (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--pipeline",
      defaultValue = "32",
      description = "Requests in flight per thread (default ${DEFAULT-VALUE}).")
  int pipeline;

  @Option(
      names = "--conns",
      defaultValue = "1",
      description = "Client connections the threads share (default ${DEFAULT-VALUE}).")
  int conns;

  @Option(
      names = "--warmup",
      defaultValue = "0",
      description =
          "Seconds of the same load before the measured --duration, "
              + "in this process; not counted in the warm figure (default ${DEFAULT-VALUE}).")
  double warmup;

  @Option(
      names = "--cold",
      defaultValue = "0",
      description =
          "Also report the first S seconds of load on their own (a fresh client JVM: the cold"
              + " figure), and the tokens of every second (default ${DEFAULT-VALUE}: no cold"
              + " line).")
  double cold;

  @Option(names = "--in-process", description = "Measure a sequencer inside this JVM (no network).")
  boolean inProcess;

  @Override
  public Integer call() throws Exception {
    if (batch < 1 || pipeline < 1 || threads < 1 || streams < 1) {
      throw new IllegalArgumentException(
          "--batch, --pipeline, --threads and --streams must be at least 1");
    }
    List<StreamId> ids = new ArrayList<>();
    for (int k = 0; k < streams; k++) {
      ids.add(StreamId.of("tokens-" + k));
    }
    if (inProcess) {
      try (SequencerService sequencer = new SequencerService(new io.vcorfu.sequencer.Sequencer())) {
        sequencer.bootstrap(-1, java.util.Map.of()).join();
        run("in-process", 1, ids, (conn, r) -> sequencer.token(r).thenApply(x -> null));
      }
      return 0;
    }
    try (NettyTransport transport = new NettyTransport()) {
      List<ClusterStreamLog> logs = connectAll(transport, endpoint, conns, logOptions());
      try {
        List<ReplicaClient> ops = logs.stream().map(ClusterStreamLog::ops).toList();
        run(
            "loopback",
            conns,
            ids,
            (conn, r) ->
                ops.get(conn)
                    .token(
                        r.getStreamsList().stream().map(StreamId::fromMsg).toList(),
                        null,
                        r.getCount())
                    .thenApply(x -> null));
      } finally {
        closeAll(logs);
      }
    }
    return 0;
  }

  private void run(
      String where,
      int connections,
      List<StreamId> ids,
      BiFunction<Integer, TokenRequest, CompletableFuture<Void>> call)
      throws InterruptedException {
    List<TokenRequest> requests = new ArrayList<>();
    for (StreamId id : ids) {
      requests.add(TokenRequest.newBuilder().addStreams(id.toMsg()).setCount(batch).build());
    }
    String label =
        String.format(
            "tokens %s threads %d conns %d streams %d batch %d pipeline %d",
            where, threads, connections, streams, batch, pipeline);
    LoadWindows windows = new LoadWindows(cold, warmup, duration);
    ProgressTicker progress = ProgressTicker.start("tokens", windows::units);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      int conn = t % connections;
      LoadWindows.Slot slot = windows.newSlot();
      Thread w =
          new Thread(
              () -> {
                Semaphore window = new Semaphore(pipeline);
                long i = thread;
                while (windows.running()) {
                  window.acquireUninterruptibly();
                  TokenRequest r = requests.get((int) (i++ % requests.size()));
                  long t0 = System.nanoTime();
                  call.apply(conn, r)
                      .whenComplete(
                          (v, e) -> {
                            if (e == null) {
                              windows.completed(slot, t0, System.nanoTime(), batch);
                            }
                            window.release();
                          });
                }
                window.acquireUninterruptibly(pipeline);
              },
              "tokens-" + t);
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
    double seconds = windows.warmSeconds();
    long tokens = windows.warmUnits();
    String coldLine = windows.coldLine(label, "tokens");
    ObjectNode result =
        BenchOutput.result("tokens")
            .put("where", where)
            .put("threads", threads)
            .put("conns", connections)
            .put("streams", streams)
            .put("batch", batch)
            .put("pipeline", pipeline);
    windows.putFigures(result);
    output.print(
        result,
        coldLine,
        String.format(
            "%s: %d tokens in %.1f s = %.0f tokens/s, request %s",
            label, tokens, seconds, tokens / seconds, windows.warmLatency()),
        coldLine == null ? null : windows.timelineLine(label, "tokens"));
  }
}
