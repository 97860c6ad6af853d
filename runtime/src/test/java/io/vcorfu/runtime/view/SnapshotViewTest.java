package io.vcorfu.runtime.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.StreamLog;
import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.testing.CountingStreamLog;
import io.vcorfu.runtime.testing.TestStreamLogs;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class SnapshotViewTest {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotViewTest.class);
  private final TestStreamLogs cluster = TestStreamLogs.create();
  private final VCorfuRuntime rt = cluster.newRuntime();

  @AfterEach
  void close() {
    rt.close();
  }

  @ParameterizedTest
  @ValueSource(longs = {1L, 42L, 2026L})
  void asOfReturnsTheExactHistoryForEveryAddress(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    Counter c = rt.objects().open("history", Counter.class);
    Counter noise = rt.objects().open("noise", Counter.class);
    TreeMap<Long, Long> valueAt = new TreeMap<>();
    valueAt.put(-1L, 0L);
    long expected = 0;
    StreamLog tails = cluster.newLog();
    for (int i = 0; i < 150; i++) {
      if (random.nextInt(3) == 0) {
        noise.add(1);
      } else {
        long delta = random.nextInt(100) - 30;
        expected = c.addAndGet(delta);
      }
      long tail = tails.tails(java.util.List.of()).join().globalTail();
      valueAt.put(tail, expected);
    }
    // rt has the object open: snapshots come from its local view's history, without log reads.
    CountingStreamLog counting = new CountingStreamLog(cluster.newLog());
    try (VCorfuRuntime fromLog = VCorfuRuntime.using(counting)) {
      for (long address = -1; address <= valueAt.lastKey(); address++) {
        int readsBefore = counting.streamReads.get();
        Counter fromHistory = rt.objects().builder("history", Counter.class).asOf(address).open();
        Counter played = fromLog.objects().builder("history", Counter.class).asOf(address).open();
        long want = valueAt.floorEntry(address).getValue();
        assertThat(fromHistory.get())
            .as("value as of global address %d from history", address)
            .isEqualTo(want);
        assertThat(played.get())
            .as("value as of global address %d from the log", address)
            .isEqualTo(want);
        if (address >= 0) {
          assertThat(counting.streamReads.get())
              .as("the log-played view read the stream")
              .isGreaterThan(readsBefore);
        }
      }
    }
    assertThat(c.get()).isEqualTo(expected);
  }

  @Test
  void snapshotOfALocallyOpenObjectIsBuiltWithoutReadingTheLog() {
    CountingStreamLog log = new CountingStreamLog(cluster.newLog());
    try (VCorfuRuntime local = VCorfuRuntime.using(log)) {
      Counter c = local.objects().open("kept", Counter.class);
      long first = cluster.newLog().tails(java.util.List.of()).join().globalTail() + 1;
      for (int i = 1; i <= 10; i++) {
        c.add(i);
      }
      assertThat(c.get()).isEqualTo(55);
      int reads = log.streamReads.get();
      Counter old = local.objects().builder("kept", Counter.class).asOf(first + 3).open();
      assertThat(old.get()).isEqualTo(1 + 2 + 3 + 4);
      assertThat(old.upcalls()).isEqualTo(4);
      assertThat(log.streamReads.get()).isEqualTo(reads);
    }
  }

  @Test
  void underHoldIsForSnapshotViewsAndTheyReadAsAnyOther() {
    Counter c = rt.objects().open("held", Counter.class);
    c.add(5);
    long at = cluster.newLog().tails(java.util.List.of()).join().globalTail();
    c.add(2);
    assertThat(rt.objects().builder("held", Counter.class).asOf(at).underHold().open().get())
        .isEqualTo(5);
    assertThatThrownBy(() -> rt.objects().builder("held", Counter.class).underHold().open())
        .isInstanceOf(io.vcorfu.runtime.ObjectOpenException.class)
        .hasMessageContaining("underHold() is for a snapshot view");
    assertThatThrownBy(
            () -> rt.objects().builder("held", Counter.class).asOf(at).underHold().remote().open())
        .isInstanceOf(io.vcorfu.runtime.ObjectOpenException.class)
        .hasMessageContaining("not for a remote view");
  }

  @Test
  void snapshotViewRefusesMutatorsAndIgnoresLaterWrites() {
    Counter c = rt.objects().open("frozen", Counter.class);
    c.add(3);
    long at =
        c.addAndGet(4) == 7 ? cluster.newLog().tails(java.util.List.of()).join().globalTail() : -2;
    Counter old = rt.objects().builder("frozen", Counter.class).asOf(at).open();
    c.add(100);
    assertThat(old.get()).isEqualTo(7);
    assertThat(c.get()).isEqualTo(107);
    assertThatThrownBy(() -> old.add(1))
        .isInstanceOf(ReadOnlyViewException.class)
        .hasMessageContaining("snapshot view");
  }

  @Test
  void objectsThatOutgrowTheRetainedHistoryReplayOldVersionsFromTheLog() throws Exception {
    CountingStreamLog log = new CountingStreamLog(cluster.newLog());
    try (VCorfuRuntime small =
        VCorfuRuntime.using(log, RuntimeOptions.defaults().withRetainedHistoryBytes(2_000))) {
      Counter c = small.objects().open("long-lived", Counter.class);
      long first = cluster.newLog().tails(java.util.List.of()).join().globalTail() + 1;
      long[] valueAfter = new long[200];
      long sum = 0;
      for (int i = 0; i < 200; i++) {
        sum += i;
        c.add(i);
        valueAfter[i] = sum;
      }
      assertThat(c.get()).isEqualTo(sum);

      int reads = log.streamReads.get();
      for (int address = 0; address < 200; address += 13) {
        Counter old =
            small.objects().builder("long-lived", Counter.class).asOf(first + address).open();
        assertThat(old.get()).as("value as of %d", address).isEqualTo(valueAfter[address]);
      }
      assertThat(log.streamReads.get()).as("old versions came from the log").isGreaterThan(reads);

      // A transaction whose snapshot the live view has moved past reads the old version too.
      small.TXBegin();
      FutureTask<Void> mover =
          new FutureTask<>(
              () -> {
                c.add(1_000);
                assertThat(c.get()).isEqualTo(valueAfter[199] + 1_000);
              },
              null);
      new Thread(mover).start();
      mover.get(30, TimeUnit.SECONDS);
      assertThat(c.get()).isEqualTo(valueAfter[199]);
      small.TXAbort();
    }
  }
}
