package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MarkdownTest {
  @Test
  void fieldIsTheWordAfterTheFirstMatchingWordButNeverTheLastWord() {
    String line = "append threads 8 = 1234.5 appends/s p50 2.1 p99 9.8";
    assertThat(Markdown.field(line, "=")).isEqualTo("1234.5");
    assertThat(Markdown.field(line, "p99")).isEqualTo("9.8");
    assertThat(Markdown.field(line, "9.8")).isEmpty();
    assertThat(Markdown.field(line, "missing")).isEmpty();
    assertThat(Markdown.field("  a   b  ", "a")).isEqualTo("b");
  }

  @Test
  void thousandsRoundsAndGroupsDigits() {
    assertThat(Markdown.thousands("")).isEqualTo("-");
    assertThat(Markdown.thousands("7")).isEqualTo("7");
    assertThat(Markdown.thousands("999.4")).isEqualTo("999");
    assertThat(Markdown.thousands("1000")).isEqualTo("1,000");
    assertThat(Markdown.thousands("12345.6")).isEqualTo("12,346");
    assertThat(Markdown.thousands("1234567")).isEqualTo("1,234,567");
    assertThat(Markdown.thousands("-1234")).isEqualTo("-1,234");
    assertThat(Markdown.thousands("-123")).isEqualTo("-123");
  }

  @Test
  void ratioNeedsBothFiguresAndADivisorOtherThanZero() {
    assertThat(Markdown.ratio("579", "2400")).isEqualTo("0.24");
    assertThat(Markdown.ratio("", "2400")).isEqualTo("-");
    assertThat(Markdown.ratio("1", "")).isEqualTo("-");
    assertThat(Markdown.ratio("1", "0")).isEqualTo("-");
    assertThat(Markdown.ratio("10319", "4604")).isEqualTo("2.24");
  }

  @Test
  void medianOfAnOddAndAnEvenCountAndTheRange() {
    assertThat(Markdown.medianAndRange(List.of())).isEqualTo("- | -");
    assertThat(Markdown.medianAndRange(List.of(900.0, 300.0, 600.0))).isEqualTo("600 | 300-900");
    assertThat(Markdown.medianAndRange(List.of(4.0, 1.0, 2.0, 10.0))).isEqualTo("3 | 1-10");
  }

  @Test
  void afterTakesTheLastNumberOfTheMatchWithoutItsUnit() {
    String line =
        "ycsb summary: load 1000 ops, run cold (first 3 s) 812.5 ops/s, run 9000 ops at 750.1 ops/s"
            + " (0 errors)";
    assertThat(Markdown.after(line, "run cold \\(first [0-9]+ s\\) [0-9.]+ ops/s"))
        .isEqualTo("812.5");
    assertThat(Markdown.after(line, ", run [0-9]+ ops at [0-9.]+ ops/s")).isEqualTo("750.1");
    assertThat(Markdown.after(line, "run warm \\(after [0-9]+ s\\) [0-9.]+ ops/s")).isEmpty();
  }

  @Test
  void numbersAreReadAsAwkReadsThem() {
    assertThat(Markdown.number("12 ms")).isEqualTo(12.0);
    assertThat(Markdown.number("none")).isZero();
    assertThat(Markdown.number("")).isZero();
    assertThat(Markdown.number("1.5e3")).isEqualTo(1500.0);
  }

  @Test
  void roundingIsPrintfsTiesToEvenOnTheExactValue() {
    assertThat(Markdown.fixed(656.5, 0)).isEqualTo("656");
    assertThat(Markdown.fixed(1175.5, 0)).isEqualTo("1176");
    assertThat(Markdown.fixed(0.125, 2)).isEqualTo("0.12");
    assertThat(Markdown.fixed(0.135, 2)).isEqualTo("0.14");
    assertThat(Markdown.fixed(-0.001, 2)).isEqualTo("-0.00");
    assertThat(Markdown.medianAndRange(List.of(611.0, 702.0))).isEqualTo("656 | 611-702");
  }

  @Test
  void aRowHasOneCellPerValue() {
    assertThat(Markdown.row("a", 1, "")).isEqualTo("| a | 1 |  |");
  }
}
