package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Several clients sharing one {@link SMRList}. */
class SMRListConcurrencyTest {
  private static final Logger LOG = LoggerFactory.getLogger(SMRListConcurrencyTest.class);
  private static final long DEADLINE_MS = 60_000;

  private final Harness harness = new Harness();
  private final ExecutorService pool = Executors.newFixedThreadPool(6);
  private final String name = "queue-" + UUID.randomUUID();

  @AfterEach
  void close() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(30, TimeUnit.SECONDS);
    harness.close();
  }

  @ParameterizedTest
  @ValueSource(longs = {5L, 2026L})
  void twoRuntimesUsingOneListAsAWorkQueuePollEveryItemExactlyOnce(long seed) throws Exception {
    LOG.info("seed {}", seed);
    int items = 300;
    VCorfuRuntime[] rts = {harness.runtime(), harness.runtime()};
    ConcurrentLinkedQueue<Integer> polled = new ConcurrentLinkedQueue<>();
    AtomicInteger produced = new AtomicInteger();
    long deadline = System.currentTimeMillis() + DEADLINE_MS;
    List<Future<?>> futures = new ArrayList<>();
    // One producer per runtime, each offering half of the items at random ends.
    for (int p = 0; p < 2; p++) {
      SMRList<Integer> queue = Harness.list(rts[p], name);
      Random random = new Random(seed * 31 + p);
      int first = p * items / 2;
      futures.add(
          pool.submit(
              () -> {
                for (int i = first; i < first + items / 2; i++) {
                  if (random.nextBoolean()) {
                    queue.offer(i);
                  } else {
                    queue.offerFirst(i);
                  }
                  produced.incrementAndGet();
                }
              }));
    }
    // Two consumers per runtime, polling from both ends until every item was taken.
    for (int c = 0; c < 4; c++) {
      SMRList<Integer> queue = Harness.list(rts[c % 2], name);
      boolean fromBack = c >= 2;
      futures.add(
          pool.submit(
              () -> {
                while (polled.size() < items && System.currentTimeMillis() < deadline) {
                  Integer item = fromBack ? queue.pollLast() : queue.poll();
                  if (item != null) {
                    polled.add(item);
                  }
                }
              }));
    }
    for (Future<?> f : futures) {
      f.get(DEADLINE_MS + 10_000, TimeUnit.MILLISECONDS);
    }
    assertThat(produced.get()).isEqualTo(items);
    List<Integer> all = new ArrayList<>(polled);
    Set<Integer> distinct = new HashSet<>(all);
    assertThat(all).as("no item was polled twice").hasSize(distinct.size());
    assertThat(distinct).as("every item was polled").hasSize(items);
    assertThat(Harness.<Integer>list(rts[0], name)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(longs = {11L, 4242L})
  void transactionsMovingItemsBetweenTwoListsNeverLoseOrDuplicateOne(long seed) throws Exception {
    LOG.info("seed {}", seed);
    VCorfuRuntime setup = harness.runtime();
    SMRList<Integer> left = Harness.list(setup, name + "-left");
    for (int i = 0; i < 40; i++) {
      left.add(i);
    }
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      VCorfuRuntime rt = harness.runtime();
      Random random = new Random(seed + t);
      futures.add(
          pool.submit(
              () -> {
                SMRList<Integer> a = Harness.list(rt, name + "-left");
                SMRList<Integer> b = Harness.list(rt, name + "-right");
                for (int i = 0; i < 30; i++) {
                  boolean leftToRight = random.nextBoolean();
                  rt.transaction(
                      () -> {
                        SMRList<Integer> from = leftToRight ? a : b;
                        SMRList<Integer> to = leftToRight ? b : a;
                        Integer item = from.pollFirst();
                        if (item != null) {
                          to.addLast(item);
                        }
                      });
                }
              }));
    }
    for (Future<?> f : futures) {
      f.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    }
    VCorfuRuntime reader = harness.runtime();
    List<Integer> union = new ArrayList<>(Harness.<Integer>list(reader, name + "-left"));
    union.addAll(Harness.<Integer>list(reader, name + "-right"));
    assertThat(union).hasSize(40).doesNotHaveDuplicates();
  }

  @Test
  void aCheckpointedListOpensFromTheCheckpointInAnotherRuntime() {
    VCorfuRuntime rt = harness.runtime();
    SMRList<String> list = Harness.list(rt, name);
    list.addAll(List.of("a", "b", "c"));
    list.removeFirst();
    assertThat(list.size()).isEqualTo(2);
    assertThat(rt.checkpoint(list)).isPresent();
    list.add("d");
    SMRList<String> reopened = Harness.list(harness.runtime(), name);
    assertThat(reopened).containsExactly("b", "c", "d");
    reopened.add(1, "x");
    assertThat(list).containsExactly("b", "x", "c", "d");
  }
}
