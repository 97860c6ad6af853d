package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LoadWindowsTest {
  private static final long S = 1_000_000_000L;

  @Test
  void coldCountsWhatCompletedInTheFirstSecondsAndWarmWhatStartedAfterTheWarmUp() {
    long start = 1_000 * S;
    // cold: first 2 s; warm: 3 s starting 5 s after the load started.
    LoadWindows w = new LoadWindows(2, 5, 3, start);
    LoadWindows.Slot slot = w.newSlot();
    w.completed(slot, start, start + S / 2, 2); // cold, second 0
    w.completed(slot, start + S, start + S + S / 2, 4); // cold, second 1
    w.completed(
        slot, start + S + S / 2, start + 2 * S + 1, 8); // ends after the cold window: neither
    w.completed(
        slot, start + 5 * S - 1, start + 5 * S + S / 2, 16); // started before the warm window
    w.completed(slot, start + 5 * S, start + 6 * S, 32); // warm
    w.completed(slot, start + 8 * S - 1, start + 8 * S + S / 2, 64); // warm, ends after the window

    assertThat(w.coldLine("x", "units"))
        .startsWith("cold x: first 2.0 s of load")
        .contains(": 6 units = 3 units/s");
    assertThat(w.warmUnits()).isEqualTo(96);
    assertThat(w.warmSeconds()).isEqualTo(3.5);
  }

  @Test
  void completionsOfManySlotsOnManyThreadsAreAllCounted() throws Exception {
    long start = 1_000 * S;
    // cold: the first second; warm: 2 s from the start; 3,000 completions per thread, some of
    // them two threads completing one slot's operations at once.
    LoadWindows w = new LoadWindows(1, 0, 2, start);
    int threads = 4;
    int each = 3_000;
    List<LoadWindows.Slot> slots = new ArrayList<>();
    for (int t = 0; t < threads / 2; t++) {
      slots.add(w.newSlot());
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        LoadWindows.Slot slot = slots.get(t / 2);
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    long t0 = start + (i % 2) * S; // alternately in second 0 and second 1
                    w.completed(slot, t0, t0 + S / 4, 1);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(w.units()).isEqualTo((long) threads * each);
    assertThat(w.warmUnits()).isEqualTo((long) threads * each);
    assertThat(w.coldLine("x", "units")).contains(": " + threads * each / 2 + " units");
    assertThat(w.runningAt(start + 2 * S - 1)).isTrue();
    assertThat(w.runningAt(start + 2 * S)).isFalse();
  }

  @Test
  void withoutAColdWindowThereIsNoColdLine() {
    LoadWindows w = new LoadWindows(0, 0, 1);

    assertThat(w.coldLine("x", "units")).isNull();
  }

  @Test
  void negativeLengthsAreRefusedWithTheOptionNames() {
    assertThatThrownBy(() -> new LoadWindows(-1, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--cold and --warmup");
    assertThatThrownBy(() -> new LoadWindows(0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
