package io.vcorfu.benchmarks;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options every load command against a cluster shares: where to connect, how many client
 * threads, for how long, how long a client rides through a layout change, and how results are
 * printed ({@link BenchOutput}).
 */
abstract class ClusterBench implements Callable<Integer> {
  @Mixin BenchOutput output = new BenchOutput();

  /** {@code --tls-ca}, {@code --tls-cert}, {@code --tls-key}: the TLS the clients speak. */
  @Mixin io.vcorfu.server.cli.TlsFlags tls = new io.vcorfu.server.cli.TlsFlags();

  @Option(
      names = "--endpoint",
      defaultValue = "127.0.0.1:9000",
      paramLabel = "H:P[,H:P...]",
      description =
          "A node of the cluster, or several separated by commas, asked in order until one"
              + " answers (default ${DEFAULT-VALUE}).")
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

  @Option(
      names = "--failover-timeout",
      defaultValue = "30",
      description =
          "Seconds an operation keeps retrying through a layout change (a node gone, the"
              + " sequencer moved) before it fails (default ${DEFAULT-VALUE}).")
  double failoverTimeout;

  @Option(
      names = "--client-writes",
      description =
          "Each append takes a token and writes every copy itself, instead of going whole to the"
              + " sequencer node, which writes the copies (the default where the layout allows).")
  boolean clientWrites;

  /** The stream-layer options of this command's clients. */
  StreamLogOptions logOptions() {
    if (!(failoverTimeout >= 0)) {
      throw new IllegalArgumentException(
          "--failover-timeout must be 0 or more seconds, got " + failoverTimeout);
    }
    return StreamLogOptions.defaults()
        .withFailoverTimeout(Duration.ofMillis((long) (failoverTimeout * 1000)))
        .withSequencerWrites(!clientWrites)
        .withTls(tls.options());
  }

  /** A transport speaking this command's TLS (plaintext without {@code --tls-ca}). */
  io.vcorfu.protocol.netty.NettyTransport transport() {
    return new io.vcorfu.protocol.netty.NettyTransport(tls.options());
  }

  /**
   * Opens {@code conns} independent clients of the cluster at {@code endpoints} (one node or a
   * comma-separated list) on {@code transport}, with {@code options}: each has its own connection
   * to every node it talks to. On failure the ones already open are closed.
   *
   * @throws IllegalArgumentException if {@code conns} is not positive or {@code endpoints} is not a
   *     list of {@code host:port}
   */
  static List<ClusterStreamLog> connectAll(
      Transport transport, String endpoints, int conns, StreamLogOptions options) {
    if (conns < 1) {
      throw new IllegalArgumentException("--conns must be at least 1, got " + conns);
    }
    List<Endpoint> seeds = Endpoint.parseList(endpoints);
    List<ClusterStreamLog> logs = new ArrayList<>();
    try {
      for (int c = 0; c < conns; c++) {
        logs.add(ClusterStreamLog.connect(transport, seeds, options));
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
