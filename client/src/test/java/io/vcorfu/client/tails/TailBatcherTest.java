package io.vcorfu.client.tails;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.Tails;
import io.vcorfu.protocol.ServerErrorException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.proto.TailResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class TailBatcherTest {
  private static final Logger LOG = LoggerFactory.getLogger(TailBatcherTest.class);
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final StreamId A = StreamId.of("a");
  private static final StreamId B = StreamId.of("b");
  private static final StreamId C = StreamId.of("c");

  /** A tail request the test answers by hand. */
  private record Sent(List<StreamId> streams, CompletableFuture<TailResponse> answer) {}

  /** Records every request; the test completes them. */
  private static final class HandSender {
    final List<Sent> sent = new CopyOnWriteArrayList<>();

    CompletableFuture<TailResponse> send(List<StreamId> streams) {
      Sent s = new Sent(List.copyOf(streams), new CompletableFuture<>());
      sent.add(s);
      return s.answer();
    }

    Sent get(int i) {
      return sent.get(i);
    }
  }

  private static TailResponse response(long global, long... streamTails) {
    TailResponse.Builder b = TailResponse.newBuilder().setGlobalTail(global);
    for (long t : streamTails) {
      b.addStreamTails(t).addStreamLastGlobal(t + 1000);
    }
    return b.build();
  }

  @Test
  void aCallerArrivingDuringARequestIsAnsweredByTheNextRequestForTheUnionOfQueuedStreams() {
    HandSender sender = new HandSender();
    TailBatcher batcher = new TailBatcher(sender::send);

    CompletableFuture<Tails> first = batcher.tails(List.of(A));
    assertThat(sender.sent).hasSize(1);
    assertThat(sender.get(0).streams()).containsExactly(A);

    CompletableFuture<Tails> second = batcher.tails(List.of(B));
    CompletableFuture<Tails> third = batcher.tails(List.of(C, A));
    CompletableFuture<Tails> globalOnly = batcher.tails(List.of());
    assertThat(sender.sent).as("no request while one is in flight").hasSize(1);

    sender.get(0).answer().complete(response(5, 3));
    assertThat(first).isCompletedWithValue(new Tails(5, Map.of(A, 3L), Map.of(A, 1003L)));
    assertThat(second).as("not answered by the request in flight when it arrived").isNotDone();
    assertThat(third).isNotDone();
    assertThat(globalOnly).isNotDone();
    assertThat(sender.sent).hasSize(2);
    assertThat(sender.get(1).streams()).containsExactly(B, C, A);

    sender.get(1).answer().complete(response(9, 1, 2, 4));
    assertThat(second).isCompletedWithValue(new Tails(9, Map.of(B, 1L), Map.of(B, 1001L)));
    assertThat(third)
        .isCompletedWithValue(new Tails(9, Map.of(C, 2L, A, 4L), Map.of(C, 1002L, A, 1004L)));
    assertThat(globalOnly).isCompletedWithValue(new Tails(9, Map.of(), Map.of()));
    assertThat(sender.sent).hasSize(2);
  }

  @Test
  void theQueuedBatchIsSentWhenTheRequestInFlightCompletesEvenWithoutANewCaller() {
    HandSender sender = new HandSender();
    TailBatcher batcher = new TailBatcher(sender::send);
    batcher.tails(List.of(A));
    CompletableFuture<Tails> queued = batcher.tails(List.of(B));
    assertThat(sender.sent).hasSize(1);

    sender.get(0).answer().complete(response(1, 0));
    assertThat(sender.sent).as("the queued batch goes out at once").hasSize(2);
    assertThat(sender.get(1).streams()).containsExactly(B);

    sender.get(1).answer().complete(response(2, 0));
    assertThat(queued).isCompletedWithValue(new Tails(2, Map.of(B, 0L), Map.of(B, 1000L)));

    // Nothing is in flight any more: the next caller sends at once.
    CompletableFuture<Tails> later = batcher.tails(List.of(C));
    assertThat(sender.sent).hasSize(3);
    assertThat(later).isNotDone();
  }

  @Test
  void aFailedRequestFailsExactlyItsBatchAndTheNextBatchStillGoesOut() {
    HandSender sender = new HandSender();
    TailBatcher batcher = new TailBatcher(sender::send);
    CompletableFuture<Tails> first = batcher.tails(List.of(A));
    CompletableFuture<Tails> second = batcher.tails(List.of(B));
    CompletableFuture<Tails> third = batcher.tails(List.of(C));

    sender
        .get(0)
        .answer()
        .completeExceptionally(
            new CompletionException(new TransportException("the sequencer connection dropped")));
    assertThat(first)
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(TransportException.class);
    assertThat(second).isNotDone();
    assertThat(third).isNotDone();
    assertThat(sender.sent).hasSize(2);
    assertThat(sender.get(1).streams()).containsExactly(B, C);

    CompletableFuture<Tails> fourth = batcher.tails(List.of(A));
    sender.get(1).answer().completeExceptionally(new WrongEpochException(3, 4));
    for (CompletableFuture<Tails> f : List.of(second, third)) {
      assertThat(f)
          .failsWithin(Duration.ZERO)
          .withThrowableOfType(ExecutionException.class)
          .havingCause()
          .isInstanceOf(WrongEpochException.class);
    }
    assertThat(fourth).isNotDone();
    assertThat(sender.sent).hasSize(3);
    assertThat(sender.get(2).streams()).containsExactly(A);

    sender.get(2).answer().complete(response(7, 6));
    assertThat(fourth).isCompletedWithValue(new Tails(7, Map.of(A, 6L), Map.of(A, 1006L)));
  }

  @Test
  void aSenderThatThrowsFailsTheCallerAndLeavesNothingInFlight() {
    AtomicInteger calls = new AtomicInteger();
    TailBatcher batcher =
        new TailBatcher(
            streams -> {
              if (calls.incrementAndGet() == 1) {
                throw new TransportException("no connection to the sequencer");
              }
              return CompletableFuture.completedFuture(response(4, 2));
            });
    assertThat(batcher.tails(List.of(A)))
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(TransportException.class);
    assertThat(batcher.tails(List.of(A)))
        .isCompletedWithValue(new Tails(4, Map.of(A, 2L), Map.of(A, 1002L)));
    assertThat(calls).hasValue(2);
  }

  @Test
  void anAnswerWithTheWrongNumberOfStreamTailsFailsWithAServerError() {
    HandSender sender = new HandSender();
    TailBatcher batcher = new TailBatcher(sender::send);
    CompletableFuture<Tails> f = batcher.tails(List.of(A, B));
    sender.get(0).answer().complete(response(4, 2));
    assertThat(f)
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(ServerErrorException.class);
  }

  /**
   * 8 threads x 1,000 calls for random subsets of five streams; one thread answers requests in the
   * order they are sent. Request n answers global tail n and, for pool stream i, stream tail 10n +
   * i. Every caller must get exactly its streams, from a request sent after its call began, and the
   * calls must share requests.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1L, 20240607L, 987654321L})
  void concurrentCallersShareRequestsAndEachGetsItsOwnFreshStreams(long seed) throws Exception {
    LOG.info("concurrentCallersShareRequestsAndEachGetsItsOwnFreshStreams seed {}", seed);
    List<StreamId> pool = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      pool.add(StreamId.of("s" + i));
    }
    int threads = 8;
    int callsPerThread = 1_000;
    AtomicLong requestsSent = new AtomicLong();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicBoolean overlapped = new AtomicBoolean();
    ConcurrentLinkedQueue<String> requestDefects = new ConcurrentLinkedQueue<>();
    record Numbered(long n, Sent sent) {}
    BlockingQueue<Numbered> toAnswer = new LinkedBlockingQueue<>();
    TailBatcher batcher =
        new TailBatcher(
            streams -> {
              if (inFlight.incrementAndGet() > 1) {
                overlapped.set(true);
              }
              if (new LinkedHashSet<>(streams).size() != streams.size()) {
                requestDefects.add("a request named a stream twice: " + streams);
              }
              Sent s = new Sent(List.copyOf(streams), new CompletableFuture<>());
              toAnswer.add(new Numbered(requestsSent.incrementAndGet(), s));
              return s.answer();
            });

    ExecutorService pool8 = Executors.newFixedThreadPool(threads + 1);
    try {
      AtomicBoolean done = new AtomicBoolean();
      Future<?> answerer =
          pool8.submit(
              () -> {
                while (!done.get()) {
                  Numbered r = toAnswer.poll(50, TimeUnit.MILLISECONDS);
                  if (r == null) {
                    continue;
                  }
                  TailResponse.Builder b = TailResponse.newBuilder().setGlobalTail(r.n());
                  for (StreamId s : r.sent().streams()) {
                    long t = 10 * r.n() + pool.indexOf(s);
                    b.addStreamTails(t).addStreamLastGlobal(-t);
                  }
                  inFlight.decrementAndGet();
                  r.sent().answer().complete(b.build());
                }
                return null;
              });
      List<Future<List<String>>> callers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Random random = new Random(seed * 31 + t);
        callers.add(
            pool8.submit(
                () -> {
                  List<String> defects = new ArrayList<>();
                  for (int c = 0; c < callsPerThread; c++) {
                    LinkedHashSet<StreamId> asked = new LinkedHashSet<>();
                    int k = random.nextInt(pool.size() + 1);
                    for (int j = 0; j < k; j++) {
                      asked.add(pool.get(random.nextInt(pool.size())));
                    }
                    long sentBefore = requestsSent.get();
                    Tails tails =
                        batcher
                            .tails(List.copyOf(asked))
                            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    long n = tails.globalTail();
                    if (n <= sentBefore) {
                      defects.add(
                          "answered by request "
                              + n
                              + " though "
                              + sentBefore
                              + " were sent before the call");
                    }
                    if (!tails.streamTails().keySet().equals(asked)
                        || !tails.streamLastGlobal().keySet().equals(asked)) {
                      defects.add(
                          "asked for " + asked + " but got " + tails.streamTails().keySet());
                    }
                    for (StreamId s : asked) {
                      long expected = 10 * n + pool.indexOf(s);
                      if (tails.streamTails().get(s) != expected
                          || tails.streamLastGlobal().get(s) != -expected) {
                        defects.add(
                            "stream "
                                + s
                                + " of request "
                                + n
                                + " has tail "
                                + tails.streamTails().get(s));
                      }
                    }
                  }
                  return defects;
                }));
      }
      List<String> defects = new ArrayList<>();
      for (Future<List<String>> f : callers) {
        defects.addAll(f.get(60, TimeUnit.SECONDS));
      }
      done.set(true);
      answerer.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);

      assertThat(defects).isEmpty();
      assertThat(requestDefects).isEmpty();
      assertThat(overlapped).as("never two requests in flight").isFalse();
      LOG.info("{} calls shared {} requests", threads * callsPerThread, requestsSent.get());
      assertThat(requestsSent.get()).isLessThan((long) threads * callsPerThread);
    } finally {
      pool8.shutdownNow();
      assertThat(pool8.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }
  }
}
