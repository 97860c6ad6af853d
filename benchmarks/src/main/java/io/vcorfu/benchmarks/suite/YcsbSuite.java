package io.vcorfu.benchmarks.suite;

import io.vcorfu.benchmarks.ycsb.VcorfuYcsbClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code vcorfu bench suite ycsb}: YCSB core workloads on vcorfu (one durable node), Redis
 * (appendfsync everysec) and etcd (one member) side by side on 127.0.0.1, fresh servers for every
 * workload, the pairs interleaved (vcorfu, redis, etcd for A, then for B, ...); then markdown
 * tables ({@link YcsbSummary}). Exits 0 when every pair finished without errors, 1 otherwise.
 */
@Command(
    name = "ycsb",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "YCSB core workloads A-F on vcorfu (one durable node), Redis (appendfsync everysec) and etcd"
          + " (one member) on 127.0.0.1, fresh servers for every workload, then markdown tables:"
          + " run-phase throughput cold, warm and overall, and each operation's 99th percentile"
          + " latency, with the ratios vcorfu/redis and vcorfu/etcd.",
      "Every database gets the same client threads: vcorfu's share one client runtime, redis's"
          + " each hold a connection (Jedis), etcd's share one jetcd client. Every process the run"
          + " starts is stopped by its pid. Exits 0 when every pair finished without errors."
    })
public final class YcsbSuite implements Callable<Integer> {
  @Mixin YcsbOptions options = new YcsbOptions();

  @Override
  public Integer call() throws Exception {
    YcsbOptions.Settings s = options.settings();
    Path out =
        options.out != null
            ? options.out
            : SuiteFiles.benchmarksDir().resolve("target").resolve("ycsb-run.md");
    try (Processes processes = new Processes()) {
      Path workdir = Workdirs.open(options.workdir, "ycsb", processes);
      return run(s, processes, workdir, out) ? 0 : 1;
    }
  }

  private static boolean run(YcsbOptions.Settings s, Processes processes, Path workdir, Path out)
      throws IOException, InterruptedException {
    Path raw = workdir.resolve("raw");
    Files.createDirectories(raw);
    for (String tool : List.of("redis-server", "etcd")) {
      if (Machine.firstLine(List.of(tool, "--version")).isEmpty()) {
        throw new IllegalStateException(
            "'" + tool + "' is not installed; run benchmarks/peers/install.sh");
      }
    }
    VcorfuProcesses vcorfu = new VcorfuProcesses(processes);
    int p = s.basePort();
    RedisServer redis = new RedisServer(processes, workdir.resolve("peers"), p + 1);
    EtcdCluster etcd = new EtcdCluster(processes, workdir.resolve("peers"), p + 2, p + 3, 1);
    BenchTls tls = s.tls() ? BenchTls.make(workdir.resolve("tls")) : null;
    if (tls != null) {
      redis.withTls(tls);
      etcd.withTls(tls);
    }
    String loadStart = Machine.loadAverage();
    String started = Machine.utcNow();
    List<YcsbSummary.Pair> pairs = new ArrayList<>();
    for (String w : s.workloads()) {
      Workdirs.deleteTree(workdir.resolve("vcorfu"));
      List<String> nodeArgs =
          new ArrayList<>(List.of("--data-dir", workdir.resolve("vcorfu/data").toString()));
      if (s.vcorfuFsyncMs() != null) {
        nodeArgs.addAll(List.of("--fsync-interval-ms", "" + s.vcorfuFsyncMs()));
      }
      if (tls != null) {
        nodeArgs.addAll(tls.nodeFlags());
      }
      nodeArgs.addAll(s.vcorfuNodeFlags());
      Processes.Started node =
          vcorfu.launchNode("vcorfu", workdir.resolve("vcorfu"), p, List.of("-Xmx2g"), nodeArgs);
      VcorfuProcesses.awaitReady(node);
      redis.start();
      etcd.start();
      if (s.warmupOps() > 0) {
        warmUp(s, processes, vcorfu, raw, w, tls);
      }
      for (String db : YcsbSummary.DBS) {
        pairs.add(pair(s, processes, vcorfu, raw, w, db, tls));
      }
      processes.stop(node);
      redis.stop();
      etcd.stop();
    }
    String summary = header(s) + YcsbSummary.of(s.workloads(), pairs);
    StringBuilder file = new StringBuilder(summary);
    file.append("\nStarted ").append(started).append(" (load average ").append(loadStart);
    file.append("), finished ").append(Machine.utcNow()).append(" (load average ");
    file.append(Machine.loadAverage()).append("), ").append(Machine.cores()).append(" cores.\n\n");
    file.append("## Raw output\n");
    for (YcsbSummary.Pair pair : pairs) {
      Path base = raw.resolve(pair.workload() + "-" + pair.db());
      file.append("\n### workload ").append(pair.workload()).append(", ").append(pair.db());
      file.append(" (exit status ").append(pair.status()).append(")\n\n```\n");
      file.append(Files.readString(Path.of(base + ".cmd")));
      file.append(Files.readString(Path.of(base + ".out")));
      file.append("--- standard error ---\n");
      file.append(Files.readString(Path.of(base + ".err")));
      file.append("```\n");
    }
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(out, file);
    System.out.println();
    System.out.print(summary);
    System.out.flush();
    SuiteLog.log("wrote " + out);
    return summary.contains("\nEvery (workload, database) pair finished");
  }

  /** One YCSB load and run of workload W against DB, its outputs under RAW/W-DB.*. */
  private static YcsbSummary.Pair pair(
      YcsbOptions.Settings s,
      Processes processes,
      VcorfuProcesses vcorfu,
      Path raw,
      String w,
      String db,
      BenchTls tls)
      throws IOException, InterruptedException {
    int port = s.basePort() + YcsbSummary.DBS.indexOf(db);
    String endpoint = (tls != null && db.equals("etcd") ? "https://" : "") + Net.HOST + ":" + port;
    List<String> args =
        ycsbArgs(db, w, s.records(), s.operations(), s.threads(), endpoint, "usertable_" + w);
    args.addAll(
        List.of("--cold-seconds", "" + s.coldSeconds(), "--warm-after", "" + s.warmAfter()));
    if (s.seconds() != null) {
      args.addAll(List.of("-p", "maxexecutiontime=" + s.seconds()));
    }
    args.addAll(dbProperties(s, db, tls));
    String shown = VcorfuProcesses.BENCH + " " + String.join(" ", args);
    SuiteLog.log("workload " + w + ", " + db + ": " + shown);
    Path base = raw.resolve(w + "-" + db);
    Files.writeString(Path.of(base + ".cmd"), "$ " + shown + "\n");
    Path out = Path.of(base + ".out");
    Path err = Path.of(base + ".err");
    Processes.Started p = processes.start("ycsb " + w + " " + db, out, err, vcorfu.bench(args));
    int status = Processes.waitFor(p);
    processes.stop(p);
    Files.writeString(Path.of(base + ".status"), status + "\n");
    List<String> lines = Files.readAllLines(out);
    if (status != 0) {
      SuiteLog.log(
          "workload " + w + ", " + db + " failed with exit status " + status + "; last lines:");
      Workdirs.showTail(out, 5);
      Workdirs.showTail(err, 5);
    }
    lines.stream().filter(l -> l.startsWith("ycsb summary:")).forEach(System.err::println);
    return new YcsbSummary.Pair(w, db, "" + status, lines);
  }

  private static void warmUp(
      YcsbOptions.Settings s,
      Processes processes,
      VcorfuProcesses vcorfu,
      Path raw,
      String w,
      BenchTls tls)
      throws IOException, InterruptedException {
    List<String> args =
        ycsbArgs(
            "vcorfu",
            "b",
            1000,
            s.warmupOps(),
            s.threads(),
            Net.HOST + ":" + s.basePort(),
            "warmup");
    args.addAll(dbProperties(s, "vcorfu", tls));
    SuiteLog.log(
        "warming up the vcorfu node: workload b, " + s.warmupOps() + " operations on table warmup");
    Path log = raw.resolve("warmup-" + w + "-vcorfu.out");
    Processes.Started p = processes.start("ycsb warm-up", log, vcorfu.bench(args));
    int status = Processes.waitFor(p);
    processes.stop(p);
    if (status != 0) {
      throw new IllegalStateException("the vcorfu warm-up failed; see " + log);
    }
    Files.readAllLines(log).stream()
        .filter(l -> l.startsWith("ycsb summary:"))
        .forEach(System.err::println);
  }

  /** The properties binding DB takes in this run: vcorfu's buckets and lease, the TLS files. */
  private static List<String> dbProperties(YcsbOptions.Settings s, String db, BenchTls tls) {
    List<String> props = new ArrayList<>();
    if (db.equals("vcorfu")) {
      props.addAll(
          List.of(
              "-p",
              "vcorfu.buckets=" + s.buckets(),
              "-p",
              "vcorfu.read-lease-ms=" + s.readLeaseMs(),
              "-p",
              "vcorfu.connections=" + VcorfuYcsbClient.DEFAULT_CONNECTIONS));
    }
    if (tls != null) {
      props.addAll(tls.ycsbProperties(db));
    }
    return props;
  }

  /** {@code ycsb} arguments running WORKLOAD against DB at ENDPOINT on TABLE. */
  private static List<String> ycsbArgs(
      String db,
      String workload,
      int records,
      int operations,
      int threads,
      String endpoint,
      String table) {
    return new ArrayList<>(
        List.of(
            "ycsb",
            "--db",
            db,
            "--workload",
            workload,
            "--records",
            "" + records,
            "--operations",
            "" + operations,
            "--threads",
            "" + threads,
            "--endpoint",
            endpoint,
            "-p",
            "table=" + table));
  }

  /** The summary's heading and the paragraph saying what ran. */
  static String header(YcsbOptions.Settings s) {
    return "# YCSB: vcorfu vs redis vs etcd"
        + (s.quick() ? " (--quick smoke run)" : "")
        + "\n\n"
        + s.records()
        + " records of 10 fields x 100 bytes, "
        + s.operations()
        + " operations"
        + (s.seconds() != null ? " or " + s.seconds() + " s, whichever ends first" : "")
        + ", "
        + s.threads()
        + " client threads per (workload, database), each phase's client a JVM on G1 with a 50 ms"
        + " pause goal; fresh servers for every"
        + " workload; vcorfu: one node, "
        + (s.vcorfuFsyncMs() != null
            ? "its log forced every " + s.vcorfuFsyncMs() + " ms"
            : "durable (fsync before every acknowledgement)")
        + (s.vcorfuNodeFlags().isEmpty()
            ? ""
            : ", started with " + String.join(" ", s.vcorfuNodeFlags()))
        + ", "
        + s.buckets()
        + " buckets per table, client read lease "
        + s.readLeaseMs()
        + " ms, the "
        + s.threads()
        + " threads share one client runtime ("
        + VcorfuYcsbClient.DEFAULT_CONNECTIONS
        + (VcorfuYcsbClient.DEFAULT_CONNECTIONS == 1 ? " connection" : " connections")
        + " to the node, one per processor); redis:"
        + " appendfsync everysec, one connection per thread; etcd: one member, fsync per write"
        + " batch, one jetcd client (one connection)"
        + (s.tls()
            ? "; every server serves only TLS and requires a client certificate, every client"
                + " presents one"
            : "")
        + ". Run phase figures only: cold = its first "
        + s.coldSeconds()
        + " s (a fresh client JVM), warm = after "
        + s.warmAfter()
        + " s to its last whole second of load, the clients' cleanup left out (n/a"
        + " when the phase did not run on for 5 s more), overall = the whole phase as YCSB times"
        + " it, cleanup included. Ratios: vcorfu"
        + " divided by the peer, so a throughput ratio above 1 and a p99 ratio below 1 favour"
        + " vcorfu.\n\n";
  }
}
