package io.vcorfu.server.cli;

import io.vcorfu.client.ClusterRetention;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --retain-versions N} and {@code --retain-time DURATION}: the history every runtime without
 * its own retention keeps readable below an object's newest checkpoint.
 */
final class RetentionFlags {
  @Option(
      names = "--retain-versions",
      paramLabel = "N",
      converter = VersionsConverter.class,
      description =
          "Keep at least the last N updates of every object readable (snapshot views and"
              + " transactions as of them work; older ones fail with a trimmed error). Runtimes"
              + " keep 20 unless told.")
  Long retainVersions;

  @Option(
      names = "--retain-time",
      paramLabel = "DURATION",
      converter = TimeConverter.class,
      description =
          "Keep at least this much of every object's history readable: 90s, 30m, 12h, 7d (0: no"
              + " minimum, the runtimes' default).")
  Duration retainTime;

  /** Whether either flag was given. */
  boolean given() {
    return retainVersions != null || retainTime != null;
  }

  /** The flags given, over {@code base}: a flag not given keeps {@code base}'s value. */
  ClusterRetention over(ClusterRetention base) {
    return new ClusterRetention(
        retainVersions != null ? retainVersions : base.retainVersions(),
        retainTime != null ? retainTime : base.retainTime());
  }

  /** Parses a count of updates: a whole number, 0 or more. */
  static final class VersionsConverter implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        long n = Long.parseLong(value.strip());
        if (n < 0) {
          throw new TypeConversionException("'" + value + "' is negative: give 0 or more updates");
        }
        return n;
      } catch (NumberFormatException e) {
        throw new TypeConversionException(
            "'" + value + "' is not a number of updates: give a whole number, 0 or more");
      }
    }
  }

  /** Parses a duration with a unit: ms, s, m, h or d ({@code 0} alone for none). */
  static final class TimeConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.strip();
      if (v.equals("0")) {
        return Duration.ZERO;
      }
      try {
        Duration d;
        if (v.endsWith("ms")) {
          d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        } else if (v.endsWith("s")) {
          d = Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
        } else if (v.endsWith("m")) {
          d = Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
        } else if (v.endsWith("h")) {
          d = Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
        } else if (v.endsWith("d")) {
          d = Duration.ofDays(Long.parseLong(v.substring(0, v.length() - 1)));
        } else {
          throw new NumberFormatException(v);
        }
        if (d.isNegative()) {
          throw new NumberFormatException(v);
        }
        return d;
      } catch (NumberFormatException | ArithmeticException e) {
        throw new TypeConversionException(
            "'"
                + value
                + "' is not a duration: give a whole number with a unit, as 90s, 30m, 12h"
                + " or 7d (or 0)");
      }
    }
  }
}
