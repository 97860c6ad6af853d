package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProgressTickerTest {
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private PrintStream saved;

  @BeforeEach
  void captureStandardError() {
    saved = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restoreStandardError() {
    System.setErr(saved);
  }

  private List<String> lines() {
    String text = err.toString(StandardCharsets.UTF_8);
    return text.isEmpty() ? List.of() : List.of(text.split("\n"));
  }

  @Test
  void printsEachWholeSecondUpToItsLimitWithThatSecondsOpsAndTheTotal() {
    // Started 3.5 s ago with a limit of 3 s: seconds 1, 2 and 3 are due at once, 4 never.
    long start = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(3500);
    long[] totals = {5, 12, 12};
    int[] calls = {0};
    ProgressTicker ticker =
        ProgressTicker.start(
            "unit", start, TimeUnit.SECONDS.toNanos(3), () -> totals[calls[0]++ % 3]);
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> lines().size() == 3);
    } finally {
      ticker.close();
    }

    assertThat(lines())
        .containsExactly(
            "progress unit 1 ops 5 total 5",
            "progress unit 2 ops 7 total 12",
            "progress unit 3 ops 0 total 12");
  }
}
