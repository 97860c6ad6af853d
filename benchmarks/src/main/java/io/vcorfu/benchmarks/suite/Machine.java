package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** What a result file says of the machine: load average, uptime, cores, tool versions. */
final class Machine {
  private Machine() {}

  /** The first three fields of /proc/loadavg ("2.81 7.71 8.00"). */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  /** Now in UTC to the second, as {@code date -u +%FT%TZ} prints it. */
  static String utcNow() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** The first line COMMAND prints (standard output and error together), or "" if none. */
  static String firstLine(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      try (InputStream in = p.getInputStream()) {
        String out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        int nl = out.indexOf('\n');
        return nl < 0 ? out.trim() : out.substring(0, nl);
      }
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** What {@code uptime} prints. */
  static String uptime() {
    return firstLine(List.of("uptime"));
  }
}
