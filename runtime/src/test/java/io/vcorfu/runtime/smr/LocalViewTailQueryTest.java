package io.vcorfu.runtime.smr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vcorfu.client.StreamLog;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.testing.CountingStreamLog;
import io.vcorfu.runtime.testing.ForwardingStreamLog;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How reads of a local view query the tails: before the view's lock, fresh, and only when needed.
 */
class LocalViewTailQueryTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();
  private final ExecutorService executor = Executors.newFixedThreadPool(4);

  @AfterEach
  void closeAll() throws InterruptedException {
    executor.shutdownNow();
    assertThat(executor.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
  }

  private VCorfuRuntime runtime(StreamLog log) {
    return runtimes.runtime(log);
  }

  @Test
  void concurrentReadersOfOneViewQueryTheTailsBeforeTakingTheViewLock() throws Exception {
    HoldingStreamLog log = new HoldingStreamLog(runtimes.newLog());
    Counter c = runtime(log).objects().open("shared-reads", Counter.class);
    c.add(5);
    log.holdNext(2);

    Future<Long> first = executor.submit(c::get);
    Future<Long> second = executor.submit(c::get);
    // Were the query made under the view's lock, the second reader would wait for the lock and
    // its query would not start before the first one's answer is released.
    await().atMost(WAIT).until(() -> log.held.size() == 2);
    log.releaseAll();

    assertThat(first.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(5);
    assertThat(second.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(5);
    assertThat(c.upcalls()).isEqualTo(1);
  }

  @Test
  void aTailAnswerOlderThanTheViewNeitherMovesItBackNorReappliesAnUpdate() throws Exception {
    HoldingStreamLog log = new HoldingStreamLog(runtimes.newLog());
    Counter c = runtime(log).objects().open("stale-answer", Counter.class);
    c.add(1);
    log.holdNext(1);
    // This reader's tails are taken now (value 1) and delivered after the view has moved on.
    Future<Long> slow = executor.submit(c::get);
    await().atMost(WAIT).until(() -> log.held.size() == 1 && log.held.get(0).isDone());

    Counter other = runtime(runtimes.newLog()).objects().open("stale-answer", Counter.class);
    other.add(10);
    assertThat(c.get()).as("a reader after the write sees it").isEqualTo(11);
    log.releaseAll();

    assertThat(slow.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("the delayed reader sees the view as far as it has been played")
        .isEqualTo(11);
    assertThat(c.get()).isEqualTo(11);
    assertThat(c.upcalls()).as("each update applied once").isEqualTo(2);
  }

  @Test
  void aReadSeesEveryWriteCompletedBeforeItBeganFromAnotherClient() {
    Counter reader = runtime(runtimes.newLog()).objects().open("fresh", Counter.class);
    Counter writer = runtime(runtimes.newLog()).objects().open("fresh", Counter.class);
    for (int i = 1; i <= 50; i++) {
      writer.add(1);
      assertThat(reader.get()).isEqualTo(i);
    }
  }

  @Test
  void aSnapshotViewAtItsLimitMakesNoTailQuery() {
    Counter c = runtime(runtimes.newLog()).objects().open("limited", Counter.class);
    c.add(2);
    long at = c.addAndGet(3) == 5 ? runtimes.newLog().tails(List.of()).join().globalTail() : -2;
    c.add(100);

    CountingStreamLog counting = new CountingStreamLog(runtimes.newLog());
    Counter old = runtime(counting).objects().builder("limited", Counter.class).asOf(at).open();
    assertThat(old.get()).isEqualTo(5);
    int tails = counting.tails.get();
    assertThat(old.get()).isEqualTo(5);
    assertThat(counting.tails.get())
        .as("no tail query once the view reached its limit")
        .isEqualTo(tails);
  }

  /**
   * Delegates to a stream log; the next {@code n} tail queries are made at once but their answers
   * are held until {@link #releaseAll}.
   */
  private static final class HoldingStreamLog extends ForwardingStreamLog {
    private final AtomicInteger toHold = new AtomicInteger();
    private final CompletableFuture<Void> release = new CompletableFuture<>();
    final List<CompletableFuture<Tails>> held = new CopyOnWriteArrayList<>();

    HoldingStreamLog(StreamLog delegate) {
      super(delegate);
    }

    void holdNext(int n) {
      toHold.set(n);
    }

    void releaseAll() {
      release.complete(null);
    }

    @Override
    public CompletableFuture<Tails> tails(Collection<StreamId> streams) {
      CompletableFuture<Tails> answer = delegate.tails(streams);
      if (toHold.getAndDecrement() <= 0) {
        return answer;
      }
      held.add(answer);
      return answer.thenCombine(release, (t, v) -> t);
    }
  }
}
