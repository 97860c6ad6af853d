package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The peer measurements of the stream-store suite, as {@code peers/redis.sh
 * bench-incr|bench-stream} and {@code peers/etcd.sh bench-put|bench-get} run them: each runs the
 * peer's own benchmark tool (redis-benchmark with --csv, etcd-bench with --precise) to its end and
 * returns the result lines those scripts print. Parsing is pure and static; running goes through
 * the run's {@link Processes}, so every tool started is ended by its pid.
 */
final class PeerBench {
  static final String STREAM_KEY = "vcorfu-peers-stream";
  static final String GET_KEY = "vcorfu-peers-get-key";

  private final Results results;
  private final int redisPort;
  private final String etcdEndpoints;
  private final String etcdBench;

  PeerBench(Results results, int redisPort, String etcdEndpoints, String etcdBench) {
    this.results = results;
    this.redisPort = redisPort;
    this.etcdEndpoints = etcdEndpoints;
    this.etcdBench = etcdBench;
  }

  /**
   * {@code redis incr ops/s: R p50_ms: A p99_ms: B clients: C pipeline: P requests: N seconds: S}.
   */
  String incr(int clients, int pipeline, long requests) throws IOException, InterruptedException {
    String[] r =
        csv(
            redisBenchmark(
                List.of(
                    "-t", "incr", "-c", "" + clients, "-P", "" + pipeline, "-n", "" + requests)));
    return String.format(
        Locale.ROOT,
        "redis incr ops/s: %s p50_ms: %s p99_ms: %s clients: %d pipeline: %d requests: %d"
            + " seconds: %s",
        r[0],
        r[1],
        r[2],
        clients,
        pipeline,
        requests,
        Markdown.fixed(rate(r) > 0 ? requests / rate(r) : 0, 1));
  }

  /** The XADD line and the XRANGE line of one bench-stream run (batch entries per XRANGE). */
  List<String> stream(int size, int clients, long requests, int batch)
      throws IOException, InterruptedException {
    cli(List.of("DEL", STREAM_KEY));
    String[] add =
        csv(
            redisBenchmark(
                List.of(
                    "-c",
                    "" + clients,
                    "-n",
                    "" + requests,
                    "XADD",
                    STREAM_KEY,
                    "*",
                    "f",
                    "x".repeat(size))));
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "redis xadd ops/s: %s p50_ms: %s p99_ms: %s clients: %d",
            add[0],
            add[1],
            add[2],
            clients));
    long length = Long.parseLong(cli(List.of("XLEN", STREAM_KEY)).trim());
    long perCall = Math.min(length, batch);
    if (perCall <= 0) {
      throw new IllegalStateException("the stream is empty after the XADD run");
    }
    long calls = (requests + batch - 1) / batch;
    String[] range =
        csv(
            redisBenchmark(
                List.of(
                    "-c",
                    "" + clients,
                    "-n",
                    "" + calls,
                    "XRANGE",
                    STREAM_KEY,
                    "-",
                    "+",
                    "COUNT",
                    "" + batch)));
    lines.add(
        String.format(
            Locale.ROOT,
            "redis xrange entries/s: %s calls/s: %s p50_ms: %s p99_ms: %s batch: %d",
            Markdown.fixed(rate(range) * perCall, 2),
            range[0],
            range[1],
            range[2],
            perCall));
    cli(List.of("DEL", STREAM_KEY));
    return lines;
  }

  /** {@code etcd put ...}: etcd-bench put, TOTAL puts of SIZE bytes over a key space of TOTAL. */
  String put(int size, int clients, int conns, long total)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(etcdBench));
    cmd.addAll(EtcdBench.putArgs(etcdEndpoints, size, clients, conns, total));
    return EtcdBench.putLine(results.capture("etcd-bench put", cmd), clients, conns, total);
  }

  /** {@code etcd get ...}: one key of SIZE bytes read TOTAL times, linearizable. */
  String get(int size, int clients, int conns, long total)
      throws IOException, InterruptedException {
    results.capture(
        "etcdctl put",
        List.of(
            "sh",
            "-c",
            "head -c "
                + size
                + " /dev/zero | tr '\\0' x | ETCDCTL_API=3 etcdctl --endpoints "
                + etcdEndpoints
                + " put "
                + GET_KEY
                + " >/dev/null"));
    String report =
        results.capture(
            "etcd-bench range",
            List.of(
                etcdBench,
                "--endpoints",
                etcdEndpoints,
                "--clients",
                "" + clients,
                "--conns",
                "" + conns,
                "--precise",
                "range",
                GET_KEY,
                "--total",
                "" + total,
                "--consistency",
                "l"));
    return EtcdBench.putLine(report, clients, conns, total).replaceFirst("^etcd put ", "etcd get ");
  }

  private String redisBenchmark(List<String> args) throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(List.of("redis-benchmark", "-h", Net.HOST, "-p", "" + redisPort, "--csv"));
    cmd.addAll(args);
    return results.capture("redis-benchmark", cmd);
  }

  private String cli(List<String> args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("redis-cli", "-h", Net.HOST, "-p", "" + redisPort));
    cmd.addAll(args);
    return results.capture("redis-cli", cmd);
  }

  /**
   * rps, p50 and p99 (ms) of the first data row of redis-benchmark's --csv output, found by the
   * header's column names; fails on any other output.
   */
  static String[] csv(String out) {
    String[] lines = out.split("\n");
    Map<String, Integer> col = new HashMap<>();
    String[] head = lines[0].split("\",\"");
    for (int i = 0; i < head.length; i++) {
      col.put(head[i].replace("\"", ""), i);
    }
    if (!col.containsKey("rps")
        || !col.containsKey("p50_latency_ms")
        || !col.containsKey("p99_latency_ms")) {
      throw new IllegalStateException("unexpected redis-benchmark output: " + out);
    }
    for (int l = 1; l < lines.length; l++) {
      String[] f = lines[l].split("\",\"");
      if (f.length > 1) {
        for (int i = 0; i < f.length; i++) {
          f[i] = f[i].replace("\"", "");
        }
        return new String[] {
          f[col.get("rps")], f[col.get("p50_latency_ms")], f[col.get("p99_latency_ms")]
        };
      }
    }
    throw new IllegalStateException("unexpected redis-benchmark output: " + out);
  }

  private static double rate(String[] figures) {
    return Double.parseDouble(figures[0]);
  }
}
