package io.vcorfu.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The rebuild's page sizing and its progress reports, on their own. */
class RebuilderStepsTest {

  @Test
  void pagesFollowTheEntriesSizeTowardsAboutAMebibyte() {
    // 16 slots of 64 KiB entries read 1 MiB: the next page is as long.
    assertEquals(16, Rebuilder.nextPageSlots(16, 16 * 65_536));
    // 16 slots of 1 KiB entries: the next page grows to about 1 MiB, within the slot limit.
    assertEquals(Rebuilder.PAGE, Rebuilder.nextPageSlots(16, 16 * 1_024));
    // A page of 4 MiB entries: one slot at a time, never none.
    assertEquals(1, Rebuilder.nextPageSlots(4, 16L << 20));
    // 256 slots of 16 KiB entries (4 MiB): the next page is a quarter as long.
    assertEquals(64, Rebuilder.nextPageSlots(256, 256 * 16_384));
    // Nothing read (holes, or slots trimmed meanwhile): as many slots as a page may hold.
    assertEquals(Rebuilder.PAGE, Rebuilder.nextPageSlots(16, 0));
  }

  @Test
  void progressIsReportedWhileManyShortTasksRunNotOnlyWhenOneTaskIsLong() throws Exception {
    // Twenty tasks, each done 40 ms (by the clock the wait reads) after the one before: each is
    // far shorter than the 100 ms report interval, the whole lasts 800 ms, so reports must come
    // from the time waited across tasks (a wait of one interval per task would never report).
    AtomicLong clock = new AtomicLong();
    List<Future<Void>> tasks = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      tasks.add(CompletableFuture.completedFuture(null));
    }
    AtomicInteger reports = new AtomicInteger();
    Rebuilder.awaitAll(
        tasks,
        TimeUnit.MILLISECONDS.toNanos(100),
        () -> clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(40)),
        reports::incrementAndGet);
    assertTrue(reports.get() >= 2, "reports: " + reports.get());
  }

  @Test
  void aFailedTaskFailsTheWaitWithItsCause() {
    IllegalStateException boom = new IllegalStateException("source gone");
    List<Future<Void>> tasks =
        List.of(CompletableFuture.completedFuture(null), CompletableFuture.failedFuture(boom));
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> Rebuilder.awaitAll(tasks, TimeUnit.SECONDS.toNanos(10), () -> {}));
    assertSame(boom, e.getCause());
  }
}
