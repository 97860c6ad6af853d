package io.vcorfu.benchmarks.suite;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The small text functions a suite's summary is made with, as the scripts' awk had them: fields of
 * a result line, numbers with thousands separators, ratios, medians and ranges, table rows.
 */
final class Markdown {
  private static final String NONE = "-";

  private Markdown() {}

  /** The word after the first word NAME of LINE (not counting its last word), or "". */
  static String field(String line, String name) {
    String[] f = words(line);
    for (int i = 0; i < f.length - 1; i++) {
      if (f[i].equals(name)) {
        return f[i + 1];
      }
    }
    return "";
  }

  static String[] words(String line) {
    String t = line.trim();
    return t.isEmpty() ? new String[0] : t.split("\\s+");
  }

  /**
   * The number that ends the first match of REGEX in LINE (its last word, with a trailing " ops/s"
   * taken off), or "" when REGEX does not match.
   */
  static String after(String line, String regex) {
    Matcher m = Pattern.compile(regex).matcher(line);
    if (!m.find()) {
      return "";
    }
    String s = m.group().replaceFirst(" ops/s$", "");
    return s.substring(s.lastIndexOf(' ') + 1);
  }

  /** V rounded to a whole number with thousands separators ("12,345"), or "-" when V is "". */
  static String thousands(String v) {
    if (v == null || v.isEmpty()) {
      return NONE;
    }
    String s = fixed(number(v), 0);
    StringBuilder r = new StringBuilder();
    int digits = s.startsWith("-") ? s.length() - 1 : s.length();
    for (int i = 0; i < s.length(); i++) {
      r.append(s.charAt(i));
      int left = s.length() - 1 - i;
      if (left > 0 && left % 3 == 0 && (s.charAt(i) != '-') && left < digits) {
        r.append(',');
      }
    }
    return r.toString();
  }

  /** A / B to two decimals, or "-" when either is missing or B is 0. */
  static String ratio(String a, String b) {
    if (a == null || b == null || a.isEmpty() || b.isEmpty() || number(b) == 0) {
      return NONE;
    }
    return fixed(number(a) / number(b), 2);
  }

  /** "MEDIAN | MIN-MAX" of VALUES, whole numbers; "- | -" when there are none. */
  static String medianAndRange(List<Double> values) {
    if (values.isEmpty()) {
      return "- | -";
    }
    double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    return fixed(median(values), 0) + " | " + fixed(min, 0) + "-" + fixed(max, 0);
  }

  /** The median of VALUES (the mean of the middle two when their count is even), or null. */
  static Double median(Collection<Double> values) {
    if (values.isEmpty()) {
      return null;
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  /**
   * V with SCALE decimals, rounded as C's printf rounds (awk's {@code %.Nf}): the exact binary
   * value, a tie to the even digit (656.5 is "656", 0.125 is "0.12"), a negative value rounded to
   * zero keeps its sign ("-0.00").
   */
  static String fixed(double v, int scale) {
    String s = new BigDecimal(v).setScale(scale, RoundingMode.HALF_EVEN).toPlainString();
    return v < 0 && !s.startsWith("-") ? "-" + s : s;
  }

  /** One table row: {@code | a | b | c |}. */
  static String row(Object... cells) {
    StringBuilder b = new StringBuilder("|");
    Arrays.stream(cells).forEach(c -> b.append(' ').append(c).append(" |"));
    return b.toString();
  }

  /**
   * The numeric value of the text as awk reads it: its leading number, 0 when it has none ("12 ms"
   * is 12, "none" is 0).
   */
  static double number(String s) {
    Matcher m = Pattern.compile("^\\s*[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?").matcher(s);
    return m.find() ? Double.parseDouble(m.group().trim()) : 0;
  }
}
