package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** An append's value: its run, caller and number first, then letters by position, SIZE bytes. */
class AppendValueTest {
  private static String value(int size, String run, int thread, long seq) {
    return new String(
        AppendBench.value(AppendBench.valueTemplate(size), run, thread, seq),
        StandardCharsets.US_ASCII);
  }

  @Test
  void theValueNamesItsAppendAndFillsItsSizeWithLettersByPosition() {
    String v = value(64, "r1", 3, 42);

    assertThat(v).hasSize(64).startsWith("r1-3-42-");
    for (int i = "r1-3-42-".length(); i < 64; i++) {
      assertThat(v.charAt(i)).as("position %d", i).isEqualTo((char) ('a' + i % 26));
    }
  }

  @Test
  void aSizeBelowTheNameCutsTheNameAndSizeZeroStillSendsOneByte() {
    assertThat(value(4, "r1", 3, 42)).isEqualTo("r1-3");
    assertThat(value(0, "r1", 3, 42)).isEqualTo("r");
  }

  @Test
  void eachValueIsItsOwnCopy() {
    byte[] template = AppendBench.valueTemplate(16);
    byte[] a = AppendBench.value(template, "r", 0, 1);
    byte[] b = AppendBench.value(template, "r", 0, 2);

    assertThat(new String(a, StandardCharsets.US_ASCII)).startsWith("r-0-1-");
    assertThat(new String(b, StandardCharsets.US_ASCII)).startsWith("r-0-2-");
    assertThat(template[0]).isEqualTo((byte) 'a');
  }
}
