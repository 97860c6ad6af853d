package io.vcorfu.runtime.smr;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.runtime.VersionCapturing;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class CapturedVersionsTest {
  private static final Logger LOG = LoggerFactory.getLogger(CapturedVersionsTest.class);

  /** A versioned cell: its version is the value it holds. */
  private static final class Cell implements VersionCapturing<Long> {
    long value = -1;

    @Override
    public Long captureVersion() {
      return value;
    }

    @Override
    public void restoreVersion(Long version) {
      value = version;
    }
  }

  private static long restored(CapturedVersions c, long snapshot) {
    Cell target = new Cell();
    return c.restoreInto(target, snapshot) ? target.value : Long.MIN_VALUE;
  }

  private static final LongSupplier NO_TRANSACTION = () -> Long.MAX_VALUE;

  @Test
  void servesTheGreatestCaptureAtOrBelowTheSnapshotAndKeepsOnlyTheNewestWithoutTransactions() {
    CapturedVersions c = new CapturedVersions(3, new HistoryBudget(Long.MAX_VALUE), NO_TRANSACTION);
    Cell live = new Cell();
    for (long a : new long[] {10, 20, 30, 40}) {
      live.value = a * 100;
      c.capture(a, live, 0);
    }
    assertThat(c.size()).isEqualTo(3);
    assertThat(restored(c, 19)).as("below the oldest kept").isEqualTo(Long.MIN_VALUE);
    assertThat(restored(c, 20)).isEqualTo(2000);
    assertThat(restored(c, 39)).isEqualTo(3000);
    assertThat(restored(c, 1_000)).isEqualTo(4000);
  }

  @Test
  void aSpentBudgetKeepsOnlyTheNewestAndReleaseGivesEveryByteBack() {
    HistoryBudget budget = new HistoryBudget(3 * CapturedVersions.PATH_BYTES);
    CapturedVersions c = new CapturedVersions(100, budget, NO_TRANSACTION);
    Cell live = new Cell();
    for (long a = 0; a < 10; a++) {
      live.value = a;
      c.capture(a, live, CapturedVersions.PATH_BYTES);
    }
    assertThat(c.size()).isEqualTo(1);
    assertThat(restored(c, 9)).isEqualTo(9);
    c.release();
    assertThat(budget.used()).isZero();
    assertThat(c.size()).isZero();
    assertThat(restored(c, 9)).isEqualTo(Long.MIN_VALUE);
  }

  /**
   * Beyond the newest, a version is kept while its successor is above the floor (an open
   * transaction's snapshot may fall between them), and dropped once the floor reaches it.
   */
  @Test
  void olderVersionsStayWhileAnOpenSnapshotMayReadThem() {
    long[] floor = {25};
    CapturedVersions c = new CapturedVersions(2, new HistoryBudget(Long.MAX_VALUE), () -> floor[0]);
    Cell live = new Cell();
    for (long a = 10; a <= 100; a += 10) {
      live.value = a * 100;
      c.capture(a, live, 0);
    }
    assertThat(c.size()).as("20 (the state as of 25) and every later version").isEqualTo(9);
    assertThat(restored(c, 25)).isEqualTo(2000);
    assertThat(restored(c, 19))
        .as("10 serves no snapshot at or above 25")
        .isEqualTo(Long.MIN_VALUE);
    floor[0] = 70;
    live.value = 11_000;
    c.capture(110, live, 0);
    assertThat(c.size()).as("70 and later").isEqualTo(5);
    assertThat(restored(c, 75)).isEqualTo(7000);
    floor[0] = Long.MAX_VALUE;
    live.value = 12_000;
    c.capture(120, live, 0);
    assertThat(c.size()).as("the newest two").isEqualTo(2);
    assertThat(restored(c, 115)).isEqualTo(11_000);
  }

  /**
   * Random captures (mostly in address order, some repeated or out of order) and lookups against a
   * sorted map with the same bounds and a moving floor: the same versions kept, the same answers,
   * the same bytes.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void behavesAsASortedMapWithTheSameBounds(long seed) {
    long s = seed * 0x9E3779B97F4A7C15L ^ System.nanoTime();
    LOG.info("seed {}", s);
    Random random = new Random(s);
    int newest = 1 + random.nextInt(40);
    long[] floor = {Long.MAX_VALUE};
    long budgetBytes = (2 + random.nextInt(60)) * (long) CapturedVersions.PATH_BYTES;
    HistoryBudget budget = new HistoryBudget(budgetBytes);
    HistoryBudget modelBudget = new HistoryBudget(budgetBytes);
    CapturedVersions c = new CapturedVersions(newest, budget, () -> floor[0]);
    TreeMap<Long, long[]> model = new TreeMap<>();
    Cell live = new Cell();
    long next = 0;
    for (int step = 0; step < 2_000; step++) {
      int op = random.nextInt(11);
      if (op == 10) {
        floor[0] = random.nextInt(4) == 0 ? Long.MAX_VALUE : next - random.nextInt(60);
      } else if (op < 6) {
        long address;
        if (op == 0 && !model.isEmpty()) {
          address = model.firstKey() + random.nextInt((int) (next - model.firstKey()) + 1);
        } else {
          next += 1 + random.nextInt(3);
          address = next;
        }
        long arg = random.nextInt(300);
        live.value = random.nextLong();
        c.capture(address, live, arg);
        long cost = arg + CapturedVersions.PATH_BYTES;
        long[] old = model.put(address, new long[] {live.value, cost});
        modelBudget.add(cost - (old == null ? 0 : old[1]));
        while (modelBudget.spent() && model.size() > 1) {
          modelBudget.add(-model.pollFirstEntry().getValue()[1]);
        }
        while (model.size() > newest && model.higherKey(model.firstKey()) <= floor[0]) {
          modelBudget.add(-model.pollFirstEntry().getValue()[1]);
        }
      } else {
        long snapshot = random.nextInt((int) next + 2) - 1;
        Map.Entry<Long, long[]> e = model.floorEntry(snapshot);
        assertThat(restored(c, snapshot))
            .as("seed %d step %d snapshot %d", s, step, snapshot)
            .isEqualTo(e == null ? Long.MIN_VALUE : e.getValue()[0]);
      }
      assertThat(c.size()).as("seed %d step %d", s, step).isEqualTo(model.size());
      assertThat(budget.used()).as("seed %d step %d", s, step).isEqualTo(modelBudget.used());
    }
  }
}
