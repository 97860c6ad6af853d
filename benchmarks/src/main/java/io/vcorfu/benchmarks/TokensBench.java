package io.vcorfu.benchmarks;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.runtime.stream.StreamLogOptions;
import io.vcorfu.runtime.stream.internal.ClusterStreamLog;
import io.vcorfu.runtime.stream.internal.ReplicaOps;
import io.vcorfu.sequencer.SequencerService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench tokens}: tokens per second from the sequencer. Each thread keeps
 * {@code --pipeline} requests in flight, each asking for {@code --batch} consecutive tokens for one
 * of K streams. {@code --in-process} drives a sequencer in this JVM instead of a server.
 */
@Command(name = "tokens", description = "Sequencer token throughput.")
final class TokensBench extends ClusterBench {

  @Option(names = "--streams", defaultValue = "1")
  int streams;

  @Option(names = "--batch", defaultValue = "1", description = "Tokens per request (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--pipeline", defaultValue = "32", description = "Requests in flight per thread (default ${DEFAULT-VALUE}).")
  int pipeline;

  @Option(names = "--in-process", description = "Measure a sequencer inside this JVM (no network).")
  boolean inProcess;

  @Override
  public Integer call() throws Exception {
    List<StreamId> ids = new ArrayList<>();
    for (int k = 0; k < streams; k++) {
      ids.add(StreamId.of("tokens-" + k));
    }
    if (inProcess) {
      try (SequencerService sequencer = new SequencerService(new io.vcorfu.sequencer.Sequencer())) {
        sequencer.bootstrap(-1, java.util.Map.of()).join();
        run("in-process", ids, r -> sequencer.token(r).thenApply(x -> null));
      }
      return 0;
    }
    try (NettyTransport transport = new NettyTransport();
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, Endpoint.parse(endpoint), StreamLogOptions.defaults())) {
      ReplicaOps ops = log.ops();
      run("loopback", ids, r -> ops.token(r.getStreamsList().stream().map(StreamId::fromMsg).toList(), null, r.getCount()).thenApply(x -> null));
    }
    return 0;
  }

  private void run(String where, List<StreamId> ids, Function<TokenRequest, CompletableFuture<Void>> call)
      throws InterruptedException {
    List<TokenRequest> requests = new ArrayList<>();
    for (StreamId id : ids) {
      requests.add(TokenRequest.newBuilder().addStreams(id.toMsg()).setCount(batch).build());
    }
    AtomicLong tokens = new AtomicLong();
    long deadline = System.nanoTime() + (long) (duration * 1e9);
    List<Thread> workers = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread w =
          new Thread(
              () -> {
                Semaphore window = new Semaphore(pipeline);
                long i = thread;
                while (System.nanoTime() < deadline) {
                  window.acquireUninterruptibly();
                  TokenRequest r = requests.get((int) (i++ % requests.size()));
                  call.apply(r)
                      .whenComplete(
                          (v, e) -> {
                            if (e == null) {
                              tokens.addAndGet(batch);
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
    for (Thread w : workers) {
      w.join();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "tokens %s threads %d streams %d batch %d pipeline %d: %d tokens in %.1f s = %.0f tokens/s%n",
        where, threads, streams, batch, pipeline, tokens.get(), seconds, tokens.get() / seconds);
  }
}
