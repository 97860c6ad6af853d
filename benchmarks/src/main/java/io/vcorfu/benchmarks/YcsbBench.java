package io.vcorfu.benchmarks;

import io.vcorfu.benchmarks.ycsb.YcsbRun;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench ycsb}: YCSB's own client, load phase then transaction phase, against a
 * binding ({@code redis}, {@code etcd}; {@code vcorfu} once the collections module has its CSMRMap)
 * and one of the standard core workloads A to F. Prints YCSB's report for each phase and a one-line
 * summary with the run phase's overall, cold (first {@code --cold-seconds}) and warm (after {@code
 * --warm-after}) rates. {@code -p maxexecutiontime=S} ends the run phase after S seconds.
 *
 * <p>Its progress is YCSB's own: in the run phase the client prints a status line every second on
 * standard error ({@code ... N sec: M operations; R current ops/sec; ...}), from which the cold and
 * warm rates come. With {@code --output json} the summary, or the reason the run failed, is one
 * JSON object on standard output (see {@link YcsbRun#execute}), and YCSB's report goes to standard
 * error.
 */
@Command(
    name = "ycsb",
    mixinStandardHelpOptions = true,
    description = "YCSB core workloads A-F (load, then run) against vcorfu or a peer system.",
    sortOptions = false)
final class YcsbBench implements Callable<Integer> {
  @Mixin BenchOutput output = new BenchOutput();

  @Option(names = "--db", required = true, description = "Binding: vcorfu, redis or etcd.")
  String db;

  @Option(names = "--workload", required = true, description = "Core workload a, b, c, d, e or f.")
  String workload;

  @Option(
      names = "--records",
      defaultValue = "10000",
      description = "Records loaded (default ${DEFAULT-VALUE}).")
  long records;

  @Option(
      names = "--operations",
      defaultValue = "100000",
      description = "Operations in the run phase (default ${DEFAULT-VALUE}).")
  long operations;

  @Option(
      names = "--threads",
      defaultValue = "8",
      description = "YCSB client threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--endpoint",
      description =
          "HOST:PORT of the server; for vcorfu and etcd also several nodes (members) separated"
              + " by commas"
              + " (default: the binding's, vcorfu 127.0.0.1:9000, redis 127.0.0.1:6390, etcd"
              + " 127.0.0.1:2389).")
  String endpoint;

  @Option(
      names = "--field-count",
      defaultValue = "10",
      description = "Fields per record (default ${DEFAULT-VALUE}).")
  int fieldCount;

  @Option(
      names = "--field-length",
      defaultValue = "100",
      description = "Bytes per field (default ${DEFAULT-VALUE}).")
  int fieldLength;

  @Option(
      names = {"-p", "--property"},
      description = "Extra YCSB property KEY=VALUE, passed to both phases (repeatable).")
  Map<String, String> properties = new LinkedHashMap<>();

  @Option(
      names = "--phase-timeout",
      defaultValue = "3600",
      description = "Seconds each phase may take before it is stopped (default ${DEFAULT-VALUE}).")
  long phaseTimeoutSeconds;

  @Option(
      names = "--cold-seconds",
      defaultValue = "10",
      description =
          "The cold figure: the run phase's first S seconds, a fresh client JVM (default"
              + " ${DEFAULT-VALUE}).")
  long coldSeconds;

  @Option(
      names = "--warm-after",
      defaultValue = "30",
      description =
          "The warm figure: the run phase after S seconds, to its last whole second of load"
              + " (the clients' cleanup left out; default ${DEFAULT-VALUE}; reported when the"
              + " load runs on for at least 5 s more).")
  long warmAfterSeconds;

  @Override
  public Integer call() throws Exception {
    YcsbRun run =
        new YcsbRun(
            new YcsbRun.Settings(
                db,
                workload,
                records,
                operations,
                threads,
                endpoint,
                fieldCount,
                fieldLength,
                properties,
                Duration.ofSeconds(phaseTimeoutSeconds)),
            coldSeconds,
            warmAfterSeconds);
    return run.execute(output, System.out, System.err);
  }
}
