package io.vcorfu.benchmarks.suite;

import io.vcorfu.benchmarks.CostMeter;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Processor time of a process, of some of its threads and of the whole machine, from Linux's {@code
 * /proc}, in seconds (ticks of USER_HZ, 100 a second on every Linux this runs on).
 */
final class ProcTicks {
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcTicks() {}

  /** Busy processor-seconds of the whole machine so far, every processor counted (/proc/stat). */
  static double machine() throws IOException {
    return CostMeter.cpuTicks()[0] / TICKS_PER_SECOND;
  }

  /** User and system processor-seconds of process PID, its threads that ended included. */
  static double process(long pid) throws IOException {
    return ticks(Files.readString(Path.of("/proc", "" + pid, "stat"))) / TICKS_PER_SECOND;
  }

  /**
   * User and system processor-seconds of those live threads of process PID whose name starts with
   * one of {@code prefixes} (the JVM names its compilers "C1 CompilerThre" and "C2 CompilerThre").
   */
  static double threads(long pid, String... prefixes) throws IOException {
    long sum = 0;
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", "" + pid, "task"))) {
      for (Path task : tasks) {
        try {
          String name = Files.readString(task.resolve("comm")).strip();
          for (String p : prefixes) {
            if (name.startsWith(p)) {
              sum += ticks(Files.readString(task.resolve("stat")));
              break;
            }
          }
        } catch (NoSuchFileException ended) {
          // the thread ended while listed
        }
      }
    }
    return sum / TICKS_PER_SECOND;
  }

  /**
   * utime + stime of one {@code /proc/.../stat} line. The name in parentheses may hold blanks and
   * parentheses itself, so the fields are counted from the last ')': the 14th and 15th of the line
   * are the 12th and 13th after it.
   */
  static long ticks(String statLine) {
    int close = statLine.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("not a /proc stat line: " + statLine);
    }
    String[] f = statLine.substring(close + 1).trim().split("\\s+");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
