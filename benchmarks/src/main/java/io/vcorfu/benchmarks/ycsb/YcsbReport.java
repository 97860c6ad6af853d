package io.vcorfu.benchmarks.ycsb;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * What one YCSB phase reported, read from the lines of its text report ({@code [SECTION], metric,
 * value}). Only the figures the harness checks are kept; the report itself is printed unchanged.
 * Not thread-safe: one reader adds lines, then the figures are read.
 */
public final class YcsbReport {
  private static final String LATENCY_US = "Latency(us)";

  private Double throughput;
  private Long runtimeMs;
  private final Map<String, Long> operations = new LinkedHashMap<>();
  private final Map<String, Long> errors = new LinkedHashMap<>();
  private final Map<String, Map<String, Double>> latenciesUs = new LinkedHashMap<>();

  /** Takes one line of YCSB's standard output; lines that are not report lines are ignored. */
  public void accept(String line) {
    if (!line.startsWith("[")) {
      return;
    }
    String[] parts = line.split(",\\s*", 3);
    if (parts.length != 3 || !parts[0].endsWith("]")) {
      return;
    }
    String section = parts[0].substring(1, parts[0].length() - 1);
    String metric = parts[1].trim();
    String value = parts[2].trim();
    try {
      if (section.equals("OVERALL") && metric.equals("Throughput(ops/sec)")) {
        throughput = Double.parseDouble(value);
      } else if (section.equals("OVERALL") && metric.equals("RunTime(ms)")) {
        runtimeMs = (long) Double.parseDouble(value);
      } else if (metric.equals("Operations") && !section.startsWith("CLEANUP")) {
        operations.put(section, (long) Double.parseDouble(value));
      } else if (metric.equals("Return=ERROR")) {
        errors.merge(section, (long) Double.parseDouble(value), Long::sum);
      } else if (metric.endsWith(LATENCY_US) && !section.startsWith("CLEANUP")) {
        latenciesUs
            .computeIfAbsent(section, k -> new LinkedHashMap<>())
            .put(metric.substring(0, metric.length() - "(us)".length()), Double.parseDouble(value));
      }
    } catch (NumberFormatException e) {
      // A line that looks like a report line but carries no number: not one of ours to check.
    }
  }

  /** {@code [OVERALL], Throughput(ops/sec)}, if the report had it. */
  public OptionalDouble throughput() {
    return throughput == null ? OptionalDouble.empty() : OptionalDouble.of(throughput);
  }

  /** {@code [OVERALL], RunTime(ms)} in seconds, or 0 if the report did not have it. */
  public double runtimeSeconds() {
    return runtimeMs == null ? 0 : runtimeMs / 1000.0;
  }

  /**
   * Operations completed per report section: YCSB counts an operation type's successes under its
   * name ({@code READ}) and its failures under {@code READ-FAILED}.
   */
  public Map<String, Long> operations() {
    return operations;
  }

  /**
   * The operations the phase completed, successful or not. YCSB prints no such total (a
   * read-modify-write is counted under READ, UPDATE and READ-MODIFY-WRITE alike), but it computes
   * its overall throughput as operations * 1000 / RunTime(ms), so the total is recovered from those
   * two.
   */
  public long completedOperations() {
    if (throughput == null || runtimeMs == null) {
      return 0;
    }
    return Math.round(throughput * runtimeMs / 1000.0);
  }

  /**
   * The latency figures per report section, in microseconds, under YCSB's metric names less their
   * unit ({@code [READ], 99thPercentileLatency(us), 812} is {@code READ -> 99thPercentileLatency ->
   * 812}), in the report's order.
   */
  public Map<String, Map<String, Double>> latenciesUs() {
    return latenciesUs;
  }

  /** Operations that returned ERROR, all types together. */
  public long totalErrors() {
    return errors.values().stream().mapToLong(Long::longValue).sum();
  }
}
