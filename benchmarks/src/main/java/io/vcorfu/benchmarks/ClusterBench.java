package io.vcorfu.benchmarks;

import java.util.concurrent.Callable;
import picocli.CommandLine.Option;

/**
 * The options every load command against a cluster shares: where to connect, how many client
 * threads, and for how long.
 */
abstract class ClusterBench implements Callable<Integer> {
  @Option(names = "--endpoint", defaultValue = "127.0.0.1:9000", description = "Any node of the cluster (default ${DEFAULT-VALUE}).")
  String endpoint;

  @Option(names = "--threads", defaultValue = "1", description = "Client threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--duration", defaultValue = "10", description = "Seconds (default ${DEFAULT-VALUE}).")
  double duration;
}
