package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several runtimes mutating one CSMRMap: the result is the committed operations replayed in log
 * order.
 */
class CSMRMapConcurrencyTest {
  private static final Logger LOG = LoggerFactory.getLogger(CSMRMapConcurrencyTest.class);
  private static final long DEADLINE_MS = 60_000;

  private final Harness harness = new Harness();
  private final ExecutorService pool = Executors.newFixedThreadPool(6);
  private final String name = "csmr-" + UUID.randomUUID();

  /** One committed operation: its commit address and what it did, to replay on a model. */
  private record Committed(long address, String what, Consumer<Map<String, Integer>> apply) {}

  @AfterEach
  void close() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(30, TimeUnit.SECONDS);
    harness.close();
  }

  @ParameterizedTest
  @ValueSource(longs = {8L, 20261122L})
  void finalContentsEqualTheCommittedOperationsReplayedInCommitOrder(long seed) throws Exception {
    LOG.info("seed {}", seed);
    CSMRMap.open(harness.runtime(), name, 6);
    ConcurrentLinkedQueue<Committed> log = new ConcurrentLinkedQueue<>();
    long deadline = System.currentTimeMillis() + DEADLINE_MS;
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 6; t++) {
      VCorfuRuntime rt = t < 3 ? harness.runtime() : null;
      int worker = t;
      futures.add(
          pool.submit(
              () -> {
                VCorfuRuntime mine = rt != null ? rt : harness.runtime();
                CSMRMap<String, Integer> map = CSMRMap.open(mine, name);
                Random random = new Random(seed * 97 + worker);
                for (int i = 0; i < 60 && System.currentTimeMillis() < deadline; i++) {
                  String k = "k" + random.nextInt(25);
                  int v = worker * 1000 + i;
                  int dice = random.nextInt(20);
                  Runnable op;
                  Consumer<Map<String, Integer>> effect;
                  String what;
                  if (dice < 8) {
                    op = () -> map.put(k, v);
                    effect = m -> m.put(k, v);
                    what = "put " + k + "=" + v;
                  } else if (dice < 12) {
                    op = () -> map.fastPut(k, v);
                    effect = m -> m.put(k, v);
                    what = "fastPut " + k + "=" + v;
                  } else if (dice < 17) {
                    op = () -> map.remove(k);
                    effect = m -> m.remove(k);
                    what = "remove " + k;
                  } else if (dice < 19) {
                    Map<String, Integer> batch = Map.of(k, v, k + "x", v + 1);
                    op = () -> map.putAll(batch);
                    effect = m -> m.putAll(batch);
                    what = "putAll " + batch;
                  } else {
                    op = map::clear;
                    effect = Map::clear;
                    what = "clear";
                  }
                  log.add(new Committed(commit(mine, op), what, effect));
                }
              }));
    }
    for (Future<?> f : futures) {
      f.get(DEADLINE_MS + 10_000, TimeUnit.MILLISECONDS);
    }
    List<Committed> ordered = new ArrayList<>(log);
    ordered.sort(Comparator.comparingLong(Committed::address));
    Map<String, Integer> model = new HashMap<>();
    for (Committed c : ordered) {
      c.apply().accept(model);
    }
    assertThat(ordered).extracting(Committed::address).doesNotHaveDuplicates();
    assertThat(ordered).hasSize(360);
    CSMRMap<String, Integer> fresh = CSMRMap.open(harness.runtime(), name);
    assertThat(fresh).isEqualTo(model);
    assertThat(fresh.size()).isEqualTo(model.size());
  }

  /**
   * Runs {@code op} in its own transaction until it commits; returns the commit's global address.
   */
  private static long commit(VCorfuRuntime rt, Runnable op) {
    for (int attempt = 0; attempt < 1_000; attempt++) {
      rt.TXBegin();
      try {
        op.run();
      } catch (RuntimeException e) {
        rt.TXAbort();
        throw e;
      }
      try {
        return rt.TXEnd();
      } catch (TransactionAbortedException e) {
        // A conflicting commit got in first: nothing was written; run the operation again.
      }
    }
    throw new AssertionError("an operation aborted 1000 times in a row");
  }
}
