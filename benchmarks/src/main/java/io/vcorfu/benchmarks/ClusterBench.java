package io.vcorfu.benchmarks;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;

/**
 * The options every load command against a cluster shares: where to connect, how many client
 * threads, and for how long.
 */
abstract class ClusterBench implements Callable<Integer> {
  @Option(
      names = "--endpoint",
      defaultValue = "127.0.0.1:9000",
      description = "Any node of the cluster (default ${DEFAULT-VALUE}).")
  String endpoint;

  @Option(
      names = "--threads",
      defaultValue = "1",
      description = "Client threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--duration",
      defaultValue = "10",
      description = "Seconds (default ${DEFAULT-VALUE}).")
  double duration;

  /**
   * Opens {@code conns} independent clients of the cluster at {@code endpoint} on {@code
   * transport}: each has its own connection to every node it talks to. On failure the ones already
   * open are closed.
   *
   * @throws IllegalArgumentException if {@code conns} is not positive
   */
  static List<ClusterStreamLog> connectAll(Transport transport, String endpoint, int conns) {
    if (conns < 1) {
      throw new IllegalArgumentException("--conns must be at least 1, got " + conns);
    }
    List<ClusterStreamLog> logs = new ArrayList<>();
    try {
      for (int c = 0; c < conns; c++) {
        logs.add(
            ClusterStreamLog.connect(
                transport, Endpoint.parse(endpoint), StreamLogOptions.defaults()));
      }
    } catch (RuntimeException e) {
      closeAll(logs);
      throw e;
    }
    return logs;
  }

  /** Closes every client of {@link #connectAll}. */
  static void closeAll(List<ClusterStreamLog> logs) {
    for (ClusterStreamLog log : logs) {
      log.close();
    }
  }
}
