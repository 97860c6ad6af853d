package io.vcorfu.sequencer;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * In-process token throughput of {@link SequencerService}, not a test: several caller threads ask
 * for single-stream tokens, either waiting for each reply ("sync") or keeping a window of
 * outstanding requests ("pipelined"). Each run is bounded by time and by token count.
 *
 * <p>Arguments: {@code [threads] [seconds per run]}, default 8 and 2.
 */
public final class SequencerThroughput {
  private static final int STREAMS = 1000;
  private static final int WINDOW = 128;
  private static final long MAX_TOKENS_PER_THREAD = 50_000_000;

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 2;
    TokenRequest[] requests = new TokenRequest[STREAMS];
    for (int i = 0; i < STREAMS; i++) {
      StreamIdMsg id = StreamId.of("stream-" + i).toMsg();
      requests[i] = TokenRequest.newBuilder().addStreams(id).build();
    }
    for (int round = 0; round < 2; round++) {
      for (SequencerService.Mode mode : SequencerService.Mode.values()) {
        for (boolean pipelined : new boolean[] {false, true}) {
          double rate = run(mode, pipelined, threads, seconds, requests);
          System.out.printf(
              "%s%-8s %-9s %d threads: %,.0f tokens/s%n",
              round == 0 ? "(warm-up) " : "",
              mode,
              pipelined ? "pipelined" : "sync",
              threads,
              rate);
        }
      }
    }
  }

  private static double run(
      SequencerService.Mode mode,
      boolean pipelined,
      int threads,
      double seconds,
      TokenRequest[] requests)
      throws InterruptedException {
    Sequencer sequencer = new Sequencer();
    sequencer.bootstrap(-1, Map.of());
    AtomicLong issued = new AtomicLong();
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    CountDownLatch done = new CountDownLatch(threads);
    long start = System.nanoTime();
    try (SequencerService service = new SequencerService(sequencer, mode)) {
      for (int t = 0; t < threads; t++) {
        int seed = t;
        Thread worker =
            new Thread(
                () -> {
                  long n = 0;
                  int next = seed * 7919;
                  ArrayDeque<CompletableFuture<TokenResponse>> window = new ArrayDeque<>();
                  while (n < MAX_TOKENS_PER_THREAD
                      && ((n & 255) != 0 || System.nanoTime() < deadline)) {
                    CompletableFuture<TokenResponse> f =
                        service.token(requests[Math.floorMod(next++, STREAMS)]);
                    if (pipelined) {
                      window.add(f);
                      if (window.size() >= WINDOW) {
                        window.poll().join();
                      }
                    } else {
                      f.join();
                    }
                    n++;
                  }
                  window.forEach(CompletableFuture::join);
                  issued.addAndGet(n);
                  done.countDown();
                });
        worker.start();
      }
      done.await();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    return issued.get() / elapsed;
  }
}
