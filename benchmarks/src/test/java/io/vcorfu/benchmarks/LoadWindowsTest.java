package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
