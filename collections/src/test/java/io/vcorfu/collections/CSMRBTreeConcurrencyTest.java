package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several runtimes update one {@link CSMRBTree} at once. Every committed operation is recorded with
 * its commit address (or, for an operation that wrote nothing, its snapshot); replaying them in
 * address order on a {@link TreeMap} must reproduce every result the clients saw, the final tree,
 * and the tree as of any commit address.
 */
class CSMRBTreeConcurrencyTest {
  private static final Logger LOG = LoggerFactory.getLogger(CSMRBTreeConcurrencyTest.class);
  private static final int RUNTIMES = 3;
  private static final int OPS_PER_CLIENT = 60;
  private static final int MAX_ATTEMPTS = 500;

  /**
   * One committed operation: at {@code address}, {@code key} was set to {@code value} (null:
   * removed).
   */
  private record Op(long address, boolean wrote, long key, String value, String result) {}

  private final Harness harness = new Harness();
  private final ExecutorService pool = Executors.newFixedThreadPool(RUNTIMES);

  @AfterEach
  void close() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(30, TimeUnit.SECONDS);
    harness.close();
  }

  private VCorfuRuntime runtime() {
    return harness.runtime(
        RuntimeOptions.defaults().withBackoff(Duration.ZERO, Duration.ofMillis(2)));
  }

  private static final java.util.concurrent.atomic.AtomicInteger ABORTS =
      new java.util.concurrent.atomic.AtomicInteger();

  private static List<Op> client(VCorfuRuntime rt, String name, long seed, int id) {
    CSMRBTree<Long, String> tree = CSMRBTree.open(rt, name, 4);
    Random random = new Random(seed * 31 + id);
    List<Op> done = new ArrayList<>();
    for (int i = 0; i < OPS_PER_CLIENT; i++) {
      long key = random.nextInt(48);
      boolean put = random.nextInt(100) < 65;
      String value = put ? "c" + id + "-" + i : null;
      for (int attempt = 1; ; attempt++) {
        rt.TXBegin();
        try {
          String result = put ? tree.put(key, value) : tree.remove(key);
          long address = rt.TXEnd();
          done.add(new Op(address, put || result != null, key, value, result));
          break;
        } catch (TransactionAbortedException e) {
          ABORTS.incrementAndGet();
          if (attempt == MAX_ATTEMPTS) {
            throw new AssertionError(
                "client "
                    + id
                    + " could not commit operation "
                    + i
                    + " in "
                    + MAX_ATTEMPTS
                    + " attempts",
                e);
          }
        } catch (RuntimeException e) {
          if (rt.inTransaction()) {
            rt.TXAbort();
          }
          throw e;
        }
      }
    }
    return done;
  }

  @ParameterizedTest
  @ValueSource(longs = {8L, 31337L})
  void concurrentClientsProduceTheTreeOfTheirCommittedOperationsInLogOrder(long seed)
      throws Exception {
    LOG.info("seed {}", seed);
    String name = "concurrent-" + seed;
    CSMRBTree.open(runtime(), name, 4);
    List<Future<List<Op>>> futures = new ArrayList<>();
    for (int c = 0; c < RUNTIMES; c++) {
      VCorfuRuntime rt = runtime();
      int id = c;
      futures.add(pool.submit(() -> client(rt, name, seed, id)));
    }
    List<Op> ops = new ArrayList<>();
    for (Future<List<Op>> f : futures) {
      ops.addAll(f.get(180, TimeUnit.SECONDS));
    }
    assertThat(ops).hasSize(RUNTIMES * OPS_PER_CLIENT);
    // Writes are ordered by their commit address; an operation that wrote nothing read the snapshot
    // at its address, so it comes after the write committed there.
    ops.sort(Comparator.comparingLong(Op::address).thenComparing(op -> op.wrote() ? 0 : 1));
    TreeMap<Long, String> model = new TreeMap<>();
    List<Long> commits = new ArrayList<>();
    List<TreeMap<Long, String>> models = new ArrayList<>();
    for (Op op : ops) {
      String before = model.get(op.key());
      assertThat(op.result())
          .as("seed %d: result of %s against the model in log order", seed, op)
          .isEqualTo(before);
      if (op.wrote()) {
        if (op.value() == null) {
          model.remove(op.key());
        } else {
          model.put(op.key(), op.value());
        }
        commits.add(op.address());
        models.add(new TreeMap<>(model));
      }
    }
    assertThat(commits).as("commit addresses are distinct").doesNotHaveDuplicates();
    VCorfuRuntime reader = runtime();
    CSMRBTree<Long, String> tree = CSMRBTree.open(reader, name);
    assertThat(new ArrayList<>(tree.entrySet()))
        .as("seed %d: final contents", seed)
        .containsExactlyElementsOf(model.entrySet());
    CSMRBTree.Shape shape = tree.checkStructure();
    assertThat(shape.entries()).isEqualTo(model.size());
    assertThat(shape.depth()).as("the workload split the root").isGreaterThan(1);
    LOG.info(
        "seed {}: {} commits, {} aborted attempts so far, final shape {}",
        seed,
        commits.size(),
        ABORTS.get(),
        shape);
    Random pick = new Random(seed);
    for (int i = 0; i < 5; i++) {
      int at = pick.nextInt(commits.size());
      CSMRBTree<Long, String> snapshot = CSMRBTree.openAsOf(reader, name, commits.get(at));
      assertThat(new ArrayList<>(snapshot.entrySet()))
          .as("seed %d: the tree as of %d", seed, commits.get(at))
          .containsExactlyElementsOf(models.get(at).entrySet());
    }
  }
}
