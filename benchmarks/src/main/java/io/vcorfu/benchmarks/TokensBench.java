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
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench tokens}: tokens per second from the sequencer. Each of {@code --threads}
 * callers keeps {@code --pipeline} requests in flight, each asking for {@code --batch} consecutive
 * tokens for one of K streams; caller {@code t} sends on connection {@code t mod --conns}. Callers
 * are driven as an event-loop client drives its connections: a completed request's next one is sent
 * from the thread that completed it (no thread per caller waits or is woken per request). Each
 * connection's client coalesces the requests that wait behind its busy token messages (see {@code
 * TokenBatcher}); the line ends with the requests per token message. {@code --in-process} drives a
 * sequencer in this JVM instead of a server.
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
    List<TokenRequest> requests = requests(ids);
    if (inProcess) {
      try (SequencerService sequencer = new SequencerService(new io.vcorfu.sequencer.Sequencer())) {
        sequencer.bootstrap(-1, java.util.Map.of()).join();
        run("in-process", 1, requests, (conn, k) -> sequencer.token(requests.get(k)));
      }
      return 0;
    }
    try (NettyTransport transport = transport()) {
      List<ClusterStreamLog> logs = connectAll(transport, endpoint, conns, logOptions());
      try {
        List<ReplicaClient> ops = logs.stream().map(ClusterStreamLog::ops).toList();
        // Each request's streams as the client API takes them, made once, not per call (a list of
        // List.copyOf, which the client keeps as it is instead of copying it per call), found by
        // the request's place in the list (no lookup per call).
        List<List<StreamId>> streamsOf =
            requests.stream()
                .map(r -> List.copyOf(r.getStreamsList().stream().map(StreamId::fromMsg).toList()))
                .toList();
        run(
            "loopback",
            conns,
            requests,
            (conn, k) -> ops.get(conn).token(streamsOf.get(k), null, requests.get(k).getCount()),
            () -> {
              long[] sum = new long[2];
              for (ReplicaClient o : ops) {
                long[] x = o.tokenMessagesAndRequests();
                sum[0] += x[0];
                sum[1] += x[1];
              }
              return sum;
            });
      } finally {
        closeAll(logs);
      }
    }
    return 0;
  }

  /** The requests the callers send in turn: one per stream, each for --batch tokens. */
  private List<TokenRequest> requests(List<StreamId> ids) {
    List<TokenRequest> requests = new ArrayList<>();
    for (StreamId id : ids) {
      requests.add(TokenRequest.newBuilder().addStreams(id.toMsg()).setCount(batch).build());
    }
    return requests;
  }

  /**
   * Sends request {@code request} (its place in the list of requests) on connection {@code conn}.
   */
  @FunctionalInterface
  private interface Caller {
    CompletableFuture<?> call(int conn, int request);
  }

  /**
   * One of a caller's requests in flight, sent again as soon as it completes until the load ends; a
   * request that completes at once is followed in a loop, not by recursion.
   */
  private static final class Chain {
    private final LoadWindows windows;
    private final LoadWindows.Slot slot;
    private final List<TokenRequest> requests;
    private final java.util.function.IntFunction<CompletableFuture<?>> call;
    private final CountDownLatch ended;
    private long i;
    private final int tokensPerRequest;

    Chain(
        LoadWindows windows,
        LoadWindows.Slot slot,
        List<TokenRequest> requests,
        long first,
        java.util.function.IntFunction<CompletableFuture<?>> call,
        CountDownLatch ended) {
      this.windows = windows;
      this.slot = slot;
      this.requests = requests;
      this.i = first;
      this.call = call;
      this.ended = ended;
      this.tokensPerRequest = Math.max(1, requests.get(0).getCount());
    }

    void next() {
      next(System.nanoTime());
    }

    /**
     * Sends requests from {@code now} on (one clock read per request: a completion's time is the
     * next request's start) until one does not complete at once or the load has ended.
     */
    private void next(long now) {
      long t0 = now;
      while (windows.runningAt(t0)) {
        CompletableFuture<?> f = call.apply((int) (i++ % requests.size()));
        if (!f.isDone()) {
          long started = t0;
          f.whenComplete(
              (v, e) -> {
                long t1 = System.nanoTime();
                record(started, t1, e);
                next(t1);
              });
          return;
        }
        long t1 = System.nanoTime();
        record(t0, t1, f.isCompletedExceptionally() ? new IllegalStateException() : null);
        t0 = t1;
      }
      ended.countDown();
    }

    private void record(long t0, long t1, Throwable e) {
      if (e == null) {
        windows.completed(slot, t0, t1, tokensPerRequest);
      }
    }
  }

  private void run(String where, int connections, List<TokenRequest> requests, Caller call)
      throws InterruptedException {
    run(where, connections, requests, call, () -> null);
  }

  /**
   * Runs the load; {@code messages} gives, once it is over, the token messages sent and the
   * requests they carried (null when not known).
   */
  private void run(
      String where,
      int connections,
      List<TokenRequest> requests,
      Caller call,
      java.util.function.Supplier<long[]> messages)
      throws InterruptedException {
    String label =
        String.format(
            "tokens %s threads %d conns %d streams %d batch %d pipeline %d",
            where, threads, connections, streams, batch, pipeline);
    LoadWindows windows = new LoadWindows(cold, warmup, duration);
    ProgressTicker progress = ProgressTicker.start("tokens", windows::units);
    // Each caller keeps `pipeline` requests in flight as chains: a completion records its request
    // and sends the next one from the thread that completed it, as an event-loop client does; no
    // thread waits or is woken per request.
    CountDownLatch chains = new CountDownLatch(threads * pipeline);
    for (int t = 0; t < threads; t++) {
      int conn = t % connections;
      LoadWindows.Slot slot = windows.newSlot();
      for (int k = 0; k < pipeline; k++) {
        new Chain(windows, slot, requests, t * pipeline + k, r -> call.call(conn, r), chains)
            .next();
      }
    }
    try {
      chains.await();
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
    long[] wire = messages.get();
    if (wire != null) {
      result.put("messages", wire[0]).put("requests", wire[1]);
    }
    output.print(
        result,
        coldLine,
        String.format(
            "%s: %d tokens in %.1f s = %.0f tokens/s, request %s%s",
            label,
            tokens,
            seconds,
            tokens / seconds,
            windows.warmLatency(),
            wire == null
                ? ""
                : String.format(
                    ", %.2f requests per token message (whole run)",
                    wire[0] == 0 ? 0.0 : (double) wire[1] / wire[0])),
        coldLine == null ? null : windows.timelineLine(label, "tokens"));
  }
}
