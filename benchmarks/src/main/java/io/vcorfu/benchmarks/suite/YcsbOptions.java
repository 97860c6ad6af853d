package io.vcorfu.benchmarks.suite;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** The options of {@code vcorfu bench suite ycsb}, and the settings they resolve to. */
final class YcsbOptions {
  @Option(
      names = "--quick",
      description =
          "Smoke run: 500 records, 2000 operations (unless --records/--operations given).")
  boolean quick;

  @Option(
      names = "--out",
      description =
          "The summary and every database's raw YCSB output (default"
              + " benchmarks/target/ycsb-run.md).")
  Path out;

  @Option(
      names = "--records",
      description = "Records loaded per workload and database (default 10000).")
  Integer records;

  @Option(
      names = "--operations",
      description = "Operations in each run phase (default 100000; with --seconds, 1000000000).")
  Integer operations;

  @Option(
      names = "--seconds",
      description =
          "End each run phase after S seconds (YCSB's maxexecutiontime); the phase also ends after"
              + " --operations operations.")
  Integer seconds;

  @Option(
      names = "--cold-seconds",
      defaultValue = "10",
      description =
          "The cold figure: the first C seconds of each run phase (default ${DEFAULT-VALUE}).")
  int coldSeconds;

  @Option(
      names = "--warm-after",
      defaultValue = "30",
      description =
          "The warm figure: each run phase after W seconds, to its last whole second of load (the"
              + " clients' cleanup left out), reported when the load runs on for at least 5 s more"
              + " (default ${DEFAULT-VALUE}).")
  int warmAfter;

  @Option(
      names = "--threads",
      defaultValue = "8",
      description = "YCSB client threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--workloads",
      defaultValue = "a,b,c,d,e,f",
      description = "Comma-separated core workloads (default ${DEFAULT-VALUE}).")
  String workloads;

  @Option(
      names = "--buckets",
      defaultValue = "100",
      description = "Buckets of each vcorfu table's CSMRMap (default ${DEFAULT-VALUE}).")
  int buckets;

  @Option(
      names = "--read-lease-ms",
      defaultValue = "1000",
      description = "The vcorfu client's read lease (default ${DEFAULT-VALUE}; 0 = no lease).")
  int readLeaseMs;

  @Option(
      names = "--vcorfu-fsync-interval-ms",
      description =
          "The vcorfu node forces its log every N ms instead of before every acknowledgement"
              + " (default: none, durable acknowledgements).")
  Integer vcorfuFsyncMs;

  @Option(
      names = "--vcorfu-node-flags",
      defaultValue = "",
      description =
          "Extra `vcorfu server` flags for the vcorfu node, split on spaces (for instance"
              + " \"--warm-up-s 60\"; default none).")
  String vcorfuNodeFlags;

  @Option(
      names = "--workdir",
      description = "Scratch directory (default: a fresh one under /tmp, removed at the end).")
  Path workdir;

  @Option(
      names = "--base-port",
      defaultValue = "19200",
      description =
          "vcorfu on P, redis on P+1, etcd on P+2 (client) and P+3 (peer); default"
              + " ${DEFAULT-VALUE}.")
  int basePort;

  @Option(
      names = "--warmup-ops",
      description =
          "Operations of an unreported workload-B run on each fresh vcorfu node before its"
              + " measured pair (default 0: none).")
  Integer warmupOps;

  @Option(
      names = "--tls",
      description =
          "Every server serves over TLS only and requires client certificates, every client"
              + " presents one (certificates made with openssl for the run): vcorfu's node,"
              + " Redis (--tls-port, --tls-auth-clients yes) and etcd (--client-cert-auth).")
  boolean tls;

  /** What a run does, every default filled in. */
  record Settings(
      boolean quick,
      int records,
      int operations,
      Integer seconds,
      int coldSeconds,
      int warmAfter,
      int threads,
      List<String> workloads,
      int buckets,
      int readLeaseMs,
      Integer vcorfuFsyncMs,
      List<String> vcorfuNodeFlags,
      int basePort,
      int warmupOps,
      boolean tls) {}

  Settings settings() {
    if (seconds != null) {
      ClusterOptions.positive("--seconds", seconds);
    }
    int ops =
        operations != null ? operations : seconds != null ? 1_000_000_000 : quick ? 2000 : 100_000;
    Settings s =
        new Settings(
            quick,
            records != null ? records : quick ? 500 : 10_000,
            ops,
            seconds,
            coldSeconds,
            warmAfter,
            threads,
            workloads.isBlank()
                ? List.of()
                : Arrays.asList(workloads.toLowerCase(Locale.ROOT).split(",")),
            buckets,
            readLeaseMs,
            vcorfuFsyncMs,
            vcorfuNodeFlags.isBlank() ? List.of() : List.of(vcorfuNodeFlags.trim().split("\\s+")),
            basePort,
            warmupOps != null ? warmupOps : 0,
            tls);
    ClusterOptions.positive("--cold-seconds", s.coldSeconds());
    ClusterOptions.positive("--warm-after", s.warmAfter());
    if (s.warmupOps() < 0) {
      throw new IllegalArgumentException(
          "--warmup-ops must be 0 or a positive integer, got '" + s.warmupOps() + "'");
    }
    ClusterOptions.positive("--records", s.records());
    ClusterOptions.positive("--operations", s.operations());
    ClusterOptions.positive("--threads", s.threads());
    ClusterOptions.positive("--buckets", s.buckets());
    if (s.vcorfuFsyncMs() != null) {
      ClusterOptions.positive("--vcorfu-fsync-interval-ms", s.vcorfuFsyncMs());
    }
    if (s.readLeaseMs() < 0) {
      throw new IllegalArgumentException(
          "--read-lease-ms must be 0 or a positive integer, got '" + s.readLeaseMs() + "'");
    }
    ClusterOptions.positive("--base-port", s.basePort());
    if (s.basePort() + 3 > 65535) {
      throw new IllegalArgumentException("--base-port must leave room for four ports below 65536");
    }
    if (s.workloads().isEmpty()) {
      throw new IllegalArgumentException("--workloads must name at least one workload");
    }
    for (String w : s.workloads()) {
      if (!w.matches("[a-f]")) {
        throw new IllegalArgumentException(
            "--workloads takes letters a to f separated by commas, got '" + workloads + "'");
      }
    }
    return s;
  }
}
