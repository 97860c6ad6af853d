package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * etcd's own load generator ({@code etcd-bench}, built by {@code peers/install.sh}) as {@code
 * peers/etcd.sh bench-put} runs it, and the one line made of its report: {@code etcd put ops/s: X
 * p50_ms: Y p99_ms: Z clients: C conns: K total: N seconds: S}.
 */
final class EtcdBench {
  /** Where {@code peers/install.sh} leaves its tools when given no --workdir. */
  static final Path DEFAULT_PEERS = Path.of("/tmp/vcorfu-peers");

  private EtcdBench() {}

  /**
   * PEERS/bin/etcd-bench, copied there from /tmp/vcorfu-peers when missing, else built by {@code
   * peers/install.sh --workdir PEERS}.
   */
  static Path locate(Path peers) throws IOException, InterruptedException {
    Path bin = peers.resolve("bin/etcd-bench");
    if (Files.isExecutable(bin)) {
      return bin;
    }
    Path shared = DEFAULT_PEERS.resolve("bin/etcd-bench");
    Files.createDirectories(bin.getParent());
    if (Files.isExecutable(shared)) {
      Files.copy(shared, bin, StandardCopyOption.COPY_ATTRIBUTES);
      return bin;
    }
    Path install = SuiteFiles.benchmarksDir().resolve("peers/install.sh");
    if (!Files.isExecutable(install)) {
      throw new IllegalStateException(bin + " is missing; run benchmarks/peers/install.sh");
    }
    int status =
        new ProcessBuilder(install.toString(), "--workdir", peers.toString())
            .redirectOutput(ProcessBuilder.Redirect.INHERIT)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start()
            .waitFor();
    if (status != 0 || !Files.isExecutable(bin)) {
      throw new IllegalStateException("peers/install.sh did not build " + bin);
    }
    return bin;
  }

  /** The arguments of a put run: CLIENTS clients on CONNS connections, TOTAL puts of SIZE bytes. */
  static List<String> putArgs(String endpoints, int size, int clients, int conns, long total) {
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "--endpoints",
            endpoints,
            "--clients",
            "" + clients,
            "--conns",
            "" + conns,
            "--precise",
            "put",
            "--total",
            "" + total,
            "--val-size",
            "" + size,
            "--key-space-size",
            "" + total));
    return args;
  }

  /**
   * The result line of a put run from etcd-bench's report (its Requests/sec, Total seconds and the
   * 50% and 99% latencies, from seconds to milliseconds).
   */
  static String putLine(String report, int clients, int conns, long total) {
    String rps = null;
    String secs = null;
    String p50 = null;
    String p99 = null;
    for (String line : report.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (line.contains("Requests/sec:") && f.length > 1) {
        rps = f[1];
      } else if (line.matches("^ *Total:.*") && f.length > 1) {
        secs = f[1];
      } else if (line.matches("^ *50% in .*") && f.length > 2) {
        p50 = f[2];
      } else if (line.matches("^ *99% in .*") && f.length > 2) {
        p99 = f[2];
      }
    }
    if (rps == null || secs == null || p50 == null || p99 == null) {
      throw new IllegalStateException("unexpected etcd-bench output: " + report);
    }
    return String.format(
        Locale.ROOT,
        "etcd put ops/s: %.2f p50_ms: %.3f p99_ms: %.3f clients: %d conns: %d total: %d seconds:"
            + " %.1f",
        Double.parseDouble(rps),
        Double.parseDouble(p50) * 1000,
        Double.parseDouble(p99) * 1000,
        clients,
        conns,
        total,
        Double.parseDouble(secs));
  }
}
