package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Per-key conflict detection of SMRMap under concurrent transactions from several runtimes. */
class SMRMapConflictTest {
  private static final int RUNTIMES = 3;
  private static final int THREADS_PER_RUNTIME = 2;
  @RegisterExtension final Harness harness = new Harness();
  private final List<VCorfuRuntime> runtimes = new ArrayList<>();
  private final ExecutorService pool =
      Executors.newFixedThreadPool(RUNTIMES * THREADS_PER_RUNTIME + 1);

  private List<SMRMap<String, Integer>> maps(String name, RuntimeOptions options) {
    List<SMRMap<String, Integer>> out = new ArrayList<>();
    for (int r = 0; r < RUNTIMES; r++) {
      VCorfuRuntime rt = harness.runtime(options);
      runtimes.add(rt);
      out.add(SMRMap.open(rt, name));
    }
    return out;
  }

  @AfterEach
  void close() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
  }

  private static void awaitAll(List<Future<?>> futures) throws Exception {
    for (Future<?> f : futures) {
      f.get(120, TimeUnit.SECONDS);
    }
  }

  @Test
  void concurrentTransactionsOnDisjointKeysAllCommit() throws Exception {
    List<SMRMap<String, Integer>> maps = maps("disjoint", RuntimeOptions.defaults());
    int rounds = 25;
    AtomicInteger aborts = new AtomicInteger();
    AtomicInteger commits = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    for (int r = 0; r < RUNTIMES; r++) {
      VCorfuRuntime rt = runtimes.get(r);
      SMRMap<String, Integer> map = maps.get(r);
      for (int t = 0; t < THREADS_PER_RUNTIME; t++) {
        String key = "key-" + r + "-" + t;
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < rounds; i++) {
                    rt.TXBegin();
                    int v = map.getOrDefault(key, 0);
                    map.put(key, v + 1);
                    map.fastPut(key + "-shadow", v + 1);
                    try {
                      rt.TXEnd();
                      commits.incrementAndGet();
                    } catch (TransactionAbortedException e) {
                      aborts.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
    }
    // Blind writes of yet other keys, outside transactions, at the same time.
    SMRMap<String, Integer> blind = maps.get(0);
    futures.add(
        pool.submit(
            () -> {
              for (int i = 0; i < rounds; i++) {
                blind.fastPut("blind", i);
              }
              return null;
            }));
    awaitAll(futures);

    assertThat(aborts.get()).as("aborts of transactions on disjoint keys").isZero();
    assertThat(commits.get()).isEqualTo(RUNTIMES * THREADS_PER_RUNTIME * rounds);
    for (SMRMap<String, Integer> map : maps) {
      for (int r = 0; r < RUNTIMES; r++) {
        for (int t = 0; t < THREADS_PER_RUNTIME; t++) {
          assertThat(map.get("key-" + r + "-" + t)).isEqualTo(rounds);
          assertThat(map.get("key-" + r + "-" + t + "-shadow")).isEqualTo(rounds);
        }
      }
      assertThat(map.get("blind")).isEqualTo(rounds - 1);
    }
    assertThat(maps.get(1)).as("two runtimes agree").isEqualTo(maps.get(2));
    assertThat(Map.copyOf(maps.get(0).snapshot())).isEqualTo(Map.copyOf(maps.get(2).snapshot()));
  }

  @Test
  void transactionsOnOneSharedKeyConflictExactlyOncePerRound() throws Exception {
    List<SMRMap<String, Integer>> maps = maps("shared", RuntimeOptions.defaults());
    int threads = RUNTIMES * THREADS_PER_RUNTIME;
    int rounds = 8;
    CyclicBarrier barrier = new CyclicBarrier(threads);
    AtomicInteger aborts = new AtomicInteger();
    AtomicInteger commits = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    for (int r = 0; r < RUNTIMES; r++) {
      VCorfuRuntime rt = runtimes.get(r);
      SMRMap<String, Integer> map = maps.get(r);
      for (int t = 0; t < THREADS_PER_RUNTIME; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < rounds; i++) {
                    rt.TXBegin();
                    int v = map.getOrDefault("shared", 0);
                    barrier.await(60, TimeUnit.SECONDS); // every transaction of the round has read
                    map.put("shared", v + 1);
                    try {
                      rt.TXEnd();
                      commits.incrementAndGet();
                    } catch (TransactionAbortedException e) {
                      aborts.incrementAndGet();
                    }
                    barrier.await(60, TimeUnit.SECONDS); // the round is decided
                  }
                  return null;
                }));
      }
    }
    awaitAll(futures);
    assertThat(commits.get()).as("one commit per round").isEqualTo(rounds);
    assertThat(aborts.get())
        .as("every other transaction of a round aborts")
        .isEqualTo(rounds * (threads - 1));
    for (SMRMap<String, Integer> map : maps) {
      assertThat(map.get("shared")).isEqualTo(rounds);
    }
  }

  @Test
  void retriedTransactionsOnOneSharedKeyLoseNoIncrement() throws Exception {
    RuntimeOptions options =
        RuntimeOptions.defaults()
            .withMaxTransactionAttempts(500)
            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(20));
    List<SMRMap<String, Integer>> maps = maps("counter", options);
    int increments = 15;
    List<Future<?>> futures = new ArrayList<>();
    for (int r = 0; r < RUNTIMES; r++) {
      SMRMap<String, Integer> map = maps.get(r);
      for (int t = 0; t < THREADS_PER_RUNTIME; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < increments; i++) {
                    map.merge("count", 1, Integer::sum);
                  }
                  return null;
                }));
      }
    }
    awaitAll(futures);
    int expected = RUNTIMES * THREADS_PER_RUNTIME * increments;
    for (SMRMap<String, Integer> map : maps) {
      assertThat(map.get("count")).isEqualTo(expected);
    }
  }
}
