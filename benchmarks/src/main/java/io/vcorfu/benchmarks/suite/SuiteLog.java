package io.vcorfu.benchmarks.suite;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Progress lines on standard error, {@code [HH:MM:SS] text} in UTC; results go to standard output.
 */
final class SuiteLog {
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");

  private SuiteLog() {}

  static void log(String text) {
    System.err.println("[" + ZonedDateTime.now(ZoneOffset.UTC).format(CLOCK) + "] " + text);
    System.err.flush();
  }
}
