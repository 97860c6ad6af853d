package io.vcorfu.benchmarks;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench cost}: the machine's cost counters ({@link CostMeter}) for a script to take
 * around a peer's own benchmark tool. Without {@code --before}, prints a snapshot line; with {@code
 * --before} and {@code --after} (two such lines) and {@code --ops}, prints the cost line of what
 * ran between them.
 */
@Command(
    name = "cost",
    mixinStandardHelpOptions = true,
    description =
        "Print the machine's cost counters (processor ticks, TCP segments, context switches, the"
            + " servers' fsyncs and requests), or the cost per operation between two such"
            + " snapshots.")
final class CostCommand implements Callable<Integer> {
  @Option(
      names = "--metrics",
      split = ",",
      description = "Prometheus /metrics pages of the servers under test, comma-separated.")
  List<URI> metrics = new ArrayList<>();

  @Option(
      names = "--fsync-counters",
      split = ",",
      defaultValue = "vcorfu_fsync_seconds_count",
      description = "Counters that count fsyncs (default ${DEFAULT-VALUE}).")
  List<String> fsyncCounters;

  @Option(
      names = "--request-counters",
      split = ",",
      defaultValue = "vcorfu_requests_seconds_count",
      description = "Counters that count requests (default ${DEFAULT-VALUE}).")
  List<String> requestCounters;

  @Option(names = "--before", description = "A snapshot line printed earlier.")
  String before;

  @Option(names = "--after", description = "A snapshot line printed later.")
  String after;

  @Option(names = "--ops", defaultValue = "0", description = "Operations done in between.")
  long ops;

  @Option(names = "--label", defaultValue = "run", description = "The cost line's label.")
  String label;

  @Override
  public Integer call() throws Exception {
    if (before != null || after != null) {
      if (before == null || after == null || ops < 1) {
        throw new IllegalArgumentException(
            "--before and --after take two snapshot lines, and --ops the operations (1 or more)");
      }
      System.out.println(
          CostMeter.line(
              label, CostMeter.Snapshot.parse(before), CostMeter.Snapshot.parse(after), ops));
      return 0;
    }
    // Taken by this short-lived process, not by the peer's client: its own time says nothing.
    System.out.println(new CostMeter(metrics, fsyncCounters, requestCounters).take().withoutSelf());
    return 0;
  }
}
