package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The rebuild's pace: a token bucket at a rate that halves while the foreground's p99 is high. */
class RebuildPacerTest {
  private static final long MB = 1L << 20;
  private static final long S = 1_000_000_000L;

  @Test
  void aFullRateCopyWaitsAsLongAsItsBytesTakeAtThatRate() {
    RebuildPacer pacer = new RebuildPacer(100 * MB, 0, 0);
    // 100 ms of burst is free; after that every 10 MiB costs 100 ms.
    assertThat(pacer.delayNanos(10 * MB, 0)).isEqualTo(0);
    assertThat(pacer.delayNanos(10 * MB, 0)).isEqualTo(S / 10);
    assertThat(pacer.delayNanos(10 * MB, S / 10)).isEqualTo(S / 10);
    // Idle for a second: the bucket holds at most 100 ms.
    assertThat(pacer.delayNanos(10 * MB, 2 * S)).isEqualTo(0);
    assertThat(pacer.delayNanos(10 * MB, 2 * S)).isEqualTo(S / 10);
  }

  @Test
  void aPacedCopyStartsAtASixteenthAndDoublesWhileTheForegroundIsQuiet() {
    RebuildPacer pacer = new RebuildPacer(128 * MB, 20_000, 0);
    assertThat(pacer.bytesPerSecond()).isEqualTo(8 * MB);
    pacer.observe(10_000, 1_000);
    assertThat(pacer.bytesPerSecond()).isEqualTo(16 * MB);
    pacer.observe(0, 0); // no foreground: as quiet as can be
    assertThat(pacer.bytesPerSecond()).isEqualTo(32 * MB);
    // Between three quarters of the bound and the bound: the rate holds, and the slow start ends.
    pacer.observe(18_000, 1_000);
    assertThat(pacer.bytesPerSecond()).isEqualTo(32 * MB);
    pacer.observe(10_000, 1_000);
    assertThat(pacer.bytesPerSecond()).isEqualTo(40 * MB);

    RebuildPacer quiet = new RebuildPacer(128 * MB, 20_000, 0);
    for (int i = 0; i < 4; i++) {
      quiet.observe(0, 0);
    }
    assertThat(quiet.bytesPerSecond()).isEqualTo(128 * MB);
    // At the configured rate the slow start is over: a loaded window halves, a quiet one adds.
    quiet.observe(25_000, 1_000);
    quiet.observe(10_000, 1_000);
    assertThat(quiet.bytesPerSecond()).isEqualTo(72 * MB);
  }

  @Test
  void aForegroundAboveTheBoundHalvesTheRateDownToTheFloorAndAQuietOneRaisesItBack() {
    RebuildPacer pacer = new RebuildPacer(128 * MB, 20_000, 0);
    assertThat(pacer.bytesPerSecond()).isEqualTo(8 * MB);
    pacer.observe(25_000, 1_000);
    assertThat(pacer.bytesPerSecond()).isEqualTo(4 * MB);
    for (int i = 0; i < 4; i++) {
      pacer.observe(10_000, 1_000);
    }
    assertThat(pacer.bytesPerSecond()).isEqualTo(36 * MB);
    pacer = new RebuildPacer(128 * MB, 20_000, 0);
    for (int i = 0; i < 4; i++) {
      pacer.observe(0, 0);
    }
    assertThat(pacer.bytesPerSecond()).isEqualTo(128 * MB);
    pacer.observe(25_000, 1_000);
    assertThat(pacer.bytesPerSecond()).isEqualTo(64 * MB);
    assertThat(pacer.lastP99Micros()).isEqualTo(25_000);
    for (int i = 0; i < 20; i++) {
      pacer.observe(25_000, 1_000);
    }
    assertThat(pacer.bytesPerSecond()).isEqualTo(RebuildPacer.MIN_BYTES_PER_SECOND);
    // Between three quarters of the bound and the bound: the rate holds.
    pacer.observe(18_000, 1_000);
    assertThat(pacer.bytesPerSecond()).isEqualTo(RebuildPacer.MIN_BYTES_PER_SECOND);
    // Below three quarters: a sixteenth of the configured rate per observation, up to it.
    pacer.observe(10_000, 1_000);
    assertThat(pacer.bytesPerSecond()).isEqualTo(RebuildPacer.MIN_BYTES_PER_SECOND + 8 * MB);
    for (int i = 0; i < 40; i++) {
      pacer.observe(10_000, 1_000);
    }
    assertThat(pacer.bytesPerSecond()).isEqualTo(128 * MB);
  }

  @Test
  void aPacedCopysFirstWindowOfBytesGoesAtTheConfiguredRateWhateverTheForeground() {
    RebuildPacer pacer = new RebuildPacer(128 * MB, 20_000, 0);
    assertThat(RebuildPacer.firstWindowBytes(128 * MB)).isEqualTo(32 * MB);
    // A rate the product of the window's nanoseconds would overflow still gives a quarter of it.
    long quarter = Long.MAX_VALUE / 4000;
    assertThat(RebuildPacer.firstWindowBytes(Long.MAX_VALUE / 1000))
        .isBetween(quarter - 1000, quarter + 1000);
    // The foreground is slow from the start: the rate falls to the floor...
    for (int i = 0; i < 20; i++) {
      pacer.observe(400_000, 1_000);
    }
    assertThat(pacer.bytesPerSecond()).isEqualTo(RebuildPacer.MIN_BYTES_PER_SECOND);
    // ...yet 32 MiB go at 128 MiB/s: 100 ms of burst, then 250 ms for the whole window.
    long waited = 0;
    for (int i = 0; i < 32; i++) {
      waited = pacer.delayNanos(MB, 0);
    }
    assertThat(waited).isBetween(S / 4 - S / 10 - 10, S / 4 - S / 10 + 10);
    // The next MiB is charged at the paced rate: a second at 1 MiB/s.
    assertThat(pacer.delayNanos(MB, 0) - waited).isBetween(S - 10, S + 10);

    // Without pacing the configured rate holds from the first byte to the last, as before.
    RebuildPacer unpaced = new RebuildPacer(128 * MB, 0, 0);
    long at = 0;
    for (int i = 0; i < 33; i++) {
      at = unpaced.delayNanos(MB, 0);
    }
    assertThat(at).isBetween(S * 33 / 128 - S / 10 - 10, S * 33 / 128 - S / 10 + 10);
  }

  @Test
  void tooFewForegroundWritesSayNothingAndANoBoundPacerKeepsItsRate() {
    RebuildPacer pacer = new RebuildPacer(128 * MB, 20_000, 0);
    pacer.observe(25_000, 1_000);
    pacer.observe(900_000, RebuildPacer.MIN_REQUESTS - 1);
    assertThat(pacer.bytesPerSecond()).isEqualTo(12 * MB);
    assertThat(pacer.lastP99Micros()).isZero();

    RebuildPacer unbounded = new RebuildPacer(128 * MB, 0, 0);
    unbounded.observe(900_000, 1_000);
    assertThat(unbounded.bytesPerSecond()).isEqualTo(128 * MB);
  }

  @Test
  void aConfiguredRateBelowTheFloorIsItsOwnFloor() {
    RebuildPacer slow = new RebuildPacer(2_000, 20_000, 0);
    slow.observe(25_000, 1_000);
    assertThat(slow.bytesPerSecond()).isEqualTo(2_000);
  }
}
