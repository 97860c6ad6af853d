package io.vcorfu.benchmarks.suite;

import io.vcorfu.benchmarks.CostMeter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code vcorfu bench suite stream-store}: the stream-store comparison in one run, vcorfu (single
 * durable node and the five-process loopback layout), Redis and etcd one after another on
 * 127.0.0.1, like for like (the same value sizes, concurrency, pipelining depth and connections on
 * both sides of every ratio); then the summary tables ({@link StreamStoreSummary}). The full run is
 * {@link StreamStoreFullRun}; --headline runs only the headline rows, each from fresh servers, cold
 * and warm. Result lines go to standard output and WORKDIR/results.txt, progress to standard error.
 * Every process the run starts is ended by its pid, also on failure or interrupt.
 */
@Command(
    name = "stream-store",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "The stream-store comparison: vcorfu (single durable node and the five-process loopback"
          + " layout), Redis (appendfsync everysec) and etcd, one after another on 127.0.0.1, like"
          + " for like, then summary tables with the ratios.",
      "Like for like: redis-benchmark opens one connection per client (-c) and keeps -P requests"
          + " in flight on each; etcd's benchmark tool runs --clients clients over --conns"
          + " connections; vcorfu's bench runs its threads over --conns independent clients.",
      "Every process the run starts is stopped by its pid. Progress goes to standard error;"
          + " result lines and the summary go to standard output."
    })
public final class StreamStoreSuite implements Callable<Integer> {
  @Mixin StreamStoreOptions options = new StreamStoreOptions();

  private StreamStoreOptions.Settings s;
  private Processes processes;
  private VcorfuProcesses vcorfu;
  private Results results;
  private Path workdir;
  private final List<Processes.Started> nodes = new ArrayList<>();
  RedisServer redis;
  EtcdCluster etcd;
  PeerBench peers;

  @Override
  public Integer call() throws Exception {
    s = options.settings();
    try (Processes p = new Processes()) {
      processes = p;
      workdir = Workdirs.open(options.workdir, "stream-store", p);
      run();
    }
    return 0;
  }

  private void run() throws IOException, InterruptedException {
    vcorfu = new VcorfuProcesses(processes);
    results = new Results(processes, workdir);
    Path peerDir = workdir.resolve("peers");
    int p0 = s.basePort();
    redis = new RedisServer(processes, peerDir, p0 + 10);
    etcd = new EtcdCluster(processes, peerDir, p0 + 11, p0 + 12, 1);
    SuiteLog.log("load average at start: " + Machine.loadAverage());
    results.add("load-start", Machine.utcNow() + " " + Machine.uptime());
    String etcdBench = EtcdBench.locate(peerDir).toString();
    peers = new PeerBench(results, p0 + 10, etcd.endpoints(), etcdBench);
    if (s.headline()) {
      headline();
    } else {
      new StreamStoreFullRun(this, s).run();
    }
    SuiteLog.log("load average at end: " + Machine.loadAverage());
    results.add("load-end", Machine.utcNow() + " " + Machine.uptime());
    String summary = StreamStoreSummary.of(Files.readAllLines(results.file()));
    Files.writeString(workdir.resolve("summary.txt"), summary);
    System.out.println();
    System.out.print(summary);
    System.out.flush();
    if (options.out != null) {
      String raw = Files.readString(results.file());
      Files.writeString(options.out, "# raw result lines\n" + raw + "\n" + summary);
      SuiteLog.log("wrote " + options.out);
    }
  }

  String endpoint() {
    return Net.HOST + ":" + s.basePort();
  }

  Path workdir() {
    return workdir;
  }

  /** Starts one durable vcorfu server and waits for its ready line. */
  void startVcorfu(String name, int port, String heap, List<String> serverArgs)
      throws IOException, InterruptedException {
    Processes.Started node =
        vcorfu.launchNode(
            "vcorfu " + name,
            workdir.resolve("vcorfu").resolve(name),
            port,
            List.of("-Xmx" + heap),
            serverArgs);
    nodes.add(node);
    VcorfuProcesses.awaitReady(node);
  }

  /** Stops every vcorfu server of the run, each by its pid. */
  void stopVcorfu() {
    nodes.forEach(processes::stop);
    nodes.clear();
  }

  /**
   * Runs one bench client with ARGS to its end: its result lines go to standard output and,
   * prefixed with TAG, to the results file. A failing client is logged, not the end of the run.
   */
  void measure(String tag, List<String> args) throws IOException, InterruptedException {
    SuiteLog.log(tag + ": " + VcorfuProcesses.BENCH + " " + String.join(" ", args));
    Path out = results.raw().resolve("current.out");
    Path err = results.raw().resolve("current.err");
    Processes.Started p = processes.start(tag, out, err, vcorfu.bench(args));
    int status = Processes.waitFor(p);
    processes.stop(p);
    System.err.print(Files.readString(err, StandardCharsets.UTF_8));
    for (String line : Files.readAllLines(out)) {
      System.out.println(tag + " | " + line);
      results.add(tag, line);
    }
    System.out.flush();
    if (status != 0) {
      SuiteLog.log(tag + " exited with status " + status);
    }
  }

  /** A peer measurement: the lines PEER returns, as {@link #measure} records them. */
  void measurePeer(String tag, String shown, PeerRun peer)
      throws IOException, InterruptedException {
    SuiteLog.log(tag + ": " + shown);
    List<String> lines;
    try {
      lines = peer.run();
    } catch (IllegalStateException e) {
      SuiteLog.log(tag + " failed: " + e.getMessage());
      return;
    }
    for (String line : lines) {
      System.out.println(tag + " | " + line);
      results.add(tag, line);
    }
    System.out.flush();
  }

  /** One peer measurement's result lines. */
  interface PeerRun {
    List<String> run() throws IOException, InterruptedException;
  }

  /** A line that is not a measurement (a row's description or command). */
  void note(String tag, String text) throws IOException {
    results.add(tag, text);
  }

  private List<String> dataDir(String name) {
    return List.of(
        "--data-dir", workdir.resolve("vcorfu").resolve(name).resolve("data").toString());
  }

  // --- headline: each row from fresh servers, cold and warm -------------------------------------

  private void headline() throws IOException, InterruptedException {
    long ic = s.incrCold();
    long iw = s.incrWarm();
    long i16c = s.incr16Cold();
    long i16w = s.incr16Warm();
    tokenRow(
        "tokens-p1-c50",
        "tokens, 50 threads on 50 connections, 1 request in flight each, 1 token per request; redis"
            + " INCR -c 50 (50 connections)",
        50,
        1,
        ic,
        iw);
    tokenRow(
        "tokens-p1-c1",
        "tokens, 50 threads on 1 connection (one vcorfu client), 1 request in flight each; redis"
            + " INCR -c 50 (connections differ: 50)",
        1,
        1,
        ic,
        iw);
    tokenRow(
        "tokens-p16-c50",
        "tokens, 50 threads on 50 connections, 16 requests in flight each, 1 token per request;"
            + " redis INCR -c 50 -P 16",
        50,
        16,
        i16c,
        i16w);
    tokenRow(
        "tokens-p16-c1",
        "tokens, 50 threads on 1 connection, 16 requests in flight each; redis INCR -c 50 -P 16"
            + " (connections differ: 50)",
        1,
        16,
        i16c,
        i16w);
    appendRow("append-t8-c1", 8, 1, "h8c1", s.etcd8Cold(), s.etcd8Warm());
    appendRow("append-t8-c8", 8, 8, "h8c8", s.etcd8Cold(), s.etcd8Warm());
    appendRow("append-t50-c1", 50, 1, "h50c1", s.etcd50Cold(), s.etcd50Warm());
    appendRow("append-t50-c50", 50, 50, "h50c50", s.etcd50Cold(), s.etcd50Warm());
  }

  private void tokenRow(String id, String desc, int conns, int pipeline, long cold, long warm)
      throws IOException, InterruptedException {
    List<String> vargs =
        List.of(
            "tokens",
            "--threads",
            "50",
            "--conns",
            "" + conns,
            "--pipeline",
            "" + pipeline,
            "--batch",
            "1");
    String pc = "bench-incr --clients 50 --pipeline " + pipeline + " --requests " + cold;
    String pw = "bench-incr --clients 50 --pipeline " + pipeline + " --requests " + warm;
    headlineRow(
        id,
        desc,
        vargs,
        "redis",
        pc,
        pw,
        () -> {
          redis.start();
          measurePeer(id + " redis cold", pc, () -> List.of(peers.incr(50, pipeline, cold)));
          measurePeer(id + " redis warm", pw, () -> List.of(peers.incr(50, pipeline, warm)));
          redis.stop();
        });
  }

  private void appendRow(String id, int threads, int conns, String prefix, long cold, long warm)
      throws IOException, InterruptedException {
    String desc =
        String.format(
            "durable 1 KB appends, %d clients on %d connection%s; etcd put, %d clients on %d"
                + " connection%s",
            threads, conns, conns == 1 ? "" : "s", threads, conns, conns == 1 ? "" : "s");
    List<String> vargs =
        List.of(
            "append",
            "--threads",
            "" + threads,
            "--conns",
            "" + conns,
            "--size",
            "1024",
            "--streams",
            "32",
            "--prefix",
            prefix,
            "--cost",
            "--metrics",
            "http://" + Net.HOST + ":" + metricsPort() + "/metrics");
    String common = "bench-put --size 1024 --clients " + threads + " --conns " + conns;
    headlineRow(
        id,
        desc,
        vargs,
        "etcd",
        common + " --total " + cold,
        common + " --total " + warm,
        () -> {
          etcd.start();
          measurePeer(
              id + " etcd cold",
              common + " --total " + cold,
              () -> List.of(peers.put(1024, threads, conns, cold)));
          String cost =
              etcd.costMeter()
                  .around(
                      CostMeter.APPEND_WARM,
                      warm,
                      () ->
                          measurePeer(
                              id + " etcd warm",
                              common + " --total " + warm,
                              () -> List.of(peers.put(1024, threads, conns, warm))));
          results.addShown(id + " etcd cost", cost);
          etcd.stop();
        });
  }

  /** The headline node's /metrics port (see --base-port). */
  private int metricsPort() {
    return s.basePort() + 13;
  }

  /** What a headline row does with its peer: start it, run cold and warm, stop it. */
  private interface PeerSide {
    void run() throws IOException, InterruptedException;
  }

  private void headlineRow(
      String id,
      String desc,
      List<String> vargs,
      String peer,
      String peerCold,
      String peerWarm,
      PeerSide peerSide)
      throws IOException, InterruptedException {
    List<String> windows =
        List.of(
            "--cold", "" + s.cold(), "--warmup", "" + s.warmup(), "--duration", "" + s.duration());
    note(id + " desc", desc);
    note(
        id + " vcorfu-cmd",
        "vcorfu bench " + String.join(" ", vargs) + " " + String.join(" ", windows));
    note(id + " peer-cmd", "peers/" + peer + ".sh " + peerWarm + " (cold: " + peerCold + ")");
    if (!options.nodeFlags().isEmpty()) {
      note(id + " node-flags", String.join(" ", options.nodeFlags()));
    }
    Workdirs.deleteTree(workdir.resolve("vcorfu/single"));
    List<String> serverArgs = new ArrayList<>(dataDir("single"));
    serverArgs.addAll(List.of("--metrics-port", "" + metricsPort()));
    serverArgs.addAll(options.nodeFlags());
    startVcorfu("single", s.basePort(), "2g", serverArgs);
    List<String> args = new ArrayList<>(vargs);
    args.addAll(List.of("--endpoint", endpoint()));
    args.addAll(windows);
    measure(id + " vcorfu", args);
    stopVcorfu();
    peerSide.run();
  }
}
