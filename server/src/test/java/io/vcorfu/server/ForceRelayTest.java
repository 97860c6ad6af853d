package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The storage's forces reach the node's metrics, those made before the metrics start included. */
class ForceRelayTest {
  private static final class Seen implements io.vcorfu.logunit.ForceObserver {
    final List<long[]> forces = new ArrayList<>();

    @Override
    public synchronized void forced(long nanos, long records) {
      forces.add(new long[] {nanos, records});
    }
  }

  @Test
  void forcesBeforeAnObserverReachTheFirstOneAttachedInOrderThenEveryForceGoesStraightThrough() {
    ForceRelay relay = new ForceRelay();
    for (int i = 1; i <= 100; i++) {
      relay.forced(i * 1_000L, i);
    }
    Seen seen = new Seen();
    relay.attach(seen);
    assertThat(seen.forces).hasSize(100);
    for (int i = 1; i <= 100; i++) {
      assertThat(seen.forces.get(i - 1)).containsExactly(i * 1_000L, i);
    }
    relay.forced(7, 3);
    assertThat(seen.forces).hasSize(101);
    assertThat(seen.forces.get(100)).containsExactly(7L, 3L);

    // Detached: forces are kept again, for the next observer only.
    relay.attach(null);
    relay.forced(9, 1);
    Seen next = new Seen();
    relay.attach(next);
    assertThat(seen.forces).hasSize(101);
    assertThat(next.forces).hasSize(1);
    assertThat(next.forces.get(0)).containsExactly(9L, 1L);
  }

  @Test
  void forcesBeyondTheKeptOnesAreCountedWithTheirTotals() {
    ForceRelay relay = new ForceRelay();
    int beyond = 1_000;
    for (int i = 0; i < ForceRelay.KEPT + beyond; i++) {
      relay.forced(i < ForceRelay.KEPT ? 1 : 50, i < ForceRelay.KEPT ? 1 : 4);
    }
    AtomicLong count = new AtomicLong();
    AtomicLong nanos = new AtomicLong();
    AtomicLong records = new AtomicLong();
    relay.attach(
        (n, r) -> {
          count.incrementAndGet();
          nanos.addAndGet(n);
          records.addAndGet(r);
        });
    assertThat(count.get()).isEqualTo(ForceRelay.KEPT + beyond);
    assertThat(nanos.get()).isEqualTo(ForceRelay.KEPT + 50L * beyond);
    assertThat(records.get()).isEqualTo(ForceRelay.KEPT + 4L * beyond);
  }

  @Test
  void noForceIsLostOrSeenTwiceWhileAnObserverIsAttachedDuringForces() throws Exception {
    ForceRelay relay = new ForceRelay();
    int perWriter = 20_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int i = 0; i < perWriter; i++) {
                  relay.forced(1, 1);
                }
              });
      t.start();
      writers.add(t);
    }
    AtomicLong count = new AtomicLong();
    start.countDown();
    relay.attach((n, r) -> count.incrementAndGet());
    for (Thread t : writers) {
      t.join(30_000);
      assertThat(t.isAlive()).isFalse();
    }
    assertThat(count.get()).isEqualTo(2L * perWriter);
  }
}
