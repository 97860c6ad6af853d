package io.vcorfu.benchmarks.suite;

import io.vcorfu.benchmarks.CostMeter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One run of {@code vcorfu bench suite cluster}: its parts in order, then the summary. */
final class ClusterRun {
  // Node log lines carry the local time, so that a failover can be followed in them.
  private static final List<String> LOG_CLOCK =
      List.of(
          "-Dorg.slf4j.simpleLogger.showDateTime=true",
          "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
  // Puts that warm an etcd cluster's connections and caches before its measured window.
  private static final long ETCD_WARM_UP = 4000;

  private final ClusterOptions.Settings s;
  private final Processes processes;
  private final Path workdir;
  private final Path out;
  private final VcorfuProcesses vcorfu;
  private final EtcdCluster etcd;
  private final String zookeeper;
  private final List<Integer> nodePorts;
  private final List<Integer> metricsPorts;
  private Results results;
  private Path etcdBench;

  ClusterRun(ClusterOptions.Settings s, Processes processes, Path workdir, Path out) {
    this.s = s;
    this.processes = processes;
    this.workdir = workdir;
    this.out = out;
    this.vcorfu = new VcorfuProcesses(processes);
    int p = s.basePort();
    this.etcd = new EtcdCluster(processes, workdir.resolve("peers"), p + 11, p + 12, 3);
    this.zookeeper = Net.HOST + ":" + p;
    this.nodePorts = List.of(p + 1, p + 2, p + 3);
    this.metricsPorts = List.of(p + 21, p + 22, p + 23);
  }

  void run() throws IOException, InterruptedException {
    results = new Results(processes, workdir);
    if (Machine.firstLine(List.of("etcd", "--version")).isEmpty()) {
      throw new IllegalStateException("'etcd' is not installed; run benchmarks/peers/install.sh");
    }
    etcdBench = EtcdBench.locate(workdir.resolve("peers"));
    String started = Machine.utcNow();
    String loadStart = Machine.loadAverage();
    results.add("load-start", started + " " + Machine.uptime());
    results.add(
        "node-flags", s.nodeFlags().isEmpty() ? "(defaults)" : String.join(" ", s.nodeFlags()));
    SuiteLog.log("load average at start: " + loadStart);
    vcorfu.startZookeeper(workdir.resolve("zk"), s.basePort(), List.of("-Xmx256m"));
    if (s.has("failover")) {
      failover();
    }
    if (s.has("pause")) {
      pause();
    }
    if (s.has("append")) {
      append();
    }
    if (s.has("ycsb")) {
      ycsb();
    }
    if (s.has("tls")) {
      tls();
    }
    String finished = Machine.utcNow();
    String loadEnd = Machine.loadAverage();
    results.add("load-end", finished + " " + Machine.uptime());
    SuiteLog.log("load average at end: " + loadEnd);
    String sentence =
        "Started "
            + started
            + " (load average "
            + loadStart
            + "), finished "
            + finished
            + " (load average "
            + loadEnd
            + "), "
            + Machine.cores()
            + " cores; "
            + Machine.firstLine(List.of(VcorfuProcesses.javaBinary(), "-version"))
            + ", "
            + Machine.firstLine(List.of("etcd", "--version"))
            + ".";
    List<String> lines = Files.readAllLines(results.file());
    ClusterSuite.publish(ClusterSuite.summary(s, lines, sentence), lines, out);
  }

  private VcorfuCluster clusterUp(String name) throws IOException, InterruptedException {
    return clusterUp(name, null);
  }

  /** A fresh three-node cluster called NAME, plaintext or (TLS given) serving only TLS. */
  private VcorfuCluster clusterUp(String name, BenchTls tls)
      throws IOException, InterruptedException {
    List<String> jvm = new ArrayList<>(List.of("-Xmx1g"));
    jvm.addAll(LOG_CLOCK);
    VcorfuCluster c =
        new VcorfuCluster(
            vcorfu,
            processes,
            workdir.resolve("vcorfu").resolve(name),
            name,
            nodePorts,
            jvm,
            i -> {
              List<String> a =
                  new ArrayList<>(tls == null ? List.of("--plaintext") : tls.nodeFlags());
              a.addAll(
                  List.of(
                      "--zookeeper",
                      zookeeper,
                      "--cluster",
                      name,
                      "--metrics-port",
                      "" + metricsPorts.get(i)));
              a.addAll(s.nodeFlags());
              return a;
            });
    c.up(3, zookeeper, tls == null ? List.of() : tls.clientFlags());
    return c;
  }

  /** Runs {@code vcorfu bench ARGS} as measurement TAG. */
  private int bench(String tag, List<String> args) throws IOException, InterruptedException {
    return results.measure(tag, "vcorfu bench " + String.join(" ", args), vcorfu.bench(args));
  }

  private String raw(String name) {
    return results.raw().resolve(name).toString();
  }

  private void load(String what) throws IOException {
    results.add("load", what + " " + Machine.loadAverage());
  }

  private void failover() throws IOException, InterruptedException {
    for (int r = 1; r <= s.runs(); r++) {
      for (String role : List.of("sequencer", "replica")) {
        VcorfuCluster c = clusterUp("fo-" + r + "-" + role);
        try {
          bench(
              "failover vcorfu " + role + " " + r,
              failoverArgs(
                  "vcorfu",
                  c.endpoints(3),
                  c.pids(3),
                  role,
                  List.of("--before", "3"),
                  "acks-vcorfu-" + role + "-" + r + ".txt"));
        } finally {
          c.down();
        }
      }
      etcd.start();
      try {
        bench(
            "failover etcd leader " + r,
            failoverArgs(
                "etcd",
                etcd.endpoints(),
                etcd.pids(),
                "leader",
                List.of("--before", "3", "--request-timeout-ms", "200"),
                "acks-etcd-leader-" + r + ".txt"));
      } finally {
        etcd.stop();
      }
      load("failover round " + r);
    }
  }

  private void pause() throws IOException, InterruptedException {
    List<String> paused =
        List.of("--signal", "STOP", "--pause-s", "" + s.pauseS(), "--before", "" + s.pauseBefore());
    for (int r = 1; r <= s.runs(); r++) {
      for (String role : List.of("sequencer", "replica")) {
        VcorfuCluster c = clusterUp("pause-" + role + "-" + r);
        try {
          bench(
              "failover vcorfu " + role + "-paused " + r,
              failoverArgs(
                  "vcorfu",
                  c.endpoints(3),
                  c.pids(3),
                  role,
                  paused,
                  "acks-vcorfu-" + role + "-paused-" + r + ".txt"));
        } finally {
          c.down();
        }
      }
      for (String role : List.of("leader", "follower")) {
        etcd.start();
        try {
          List<String> etcdPaused = new ArrayList<>(paused);
          etcdPaused.addAll(List.of("--request-timeout-ms", "500"));
          bench(
              "failover etcd " + role + "-paused " + r,
              failoverArgs(
                  "etcd",
                  etcd.endpoints(),
                  etcd.pids(),
                  role,
                  etcdPaused,
                  "acks-etcd-" + role + "-paused-" + r + ".txt"));
        } finally {
          etcd.stop();
        }
      }
      load("pause round " + r);
    }
  }

  /**
   * {@code bench failover} against {@code db}: kill (or, with {@code --signal STOP} in {@code
   * extra}, pause) the process in {@code role}, two seconds of appends after it, the times of
   * acknowledgements in the raw file {@code acks}.
   */
  private List<String> failoverArgs(
      String db, String endpoints, String pids, String role, List<String> extra, String acks) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "failover", "--db", db, "--endpoint", endpoints, "--pids", pids, "--kill", role));
    args.addAll(extra);
    args.addAll(List.of("--after", "2", "--ack-times", raw(acks)));
    return args;
  }

  // etcd puts/s with three members on the 2-core machine: about 3,500 with 8 clients and 5,000
  // with 50 under load; the etcd runs are sized to last about --cold and --duration seconds there.
  private void append() throws IOException, InterruptedException {
    String metrics =
        String.join(
            ",",
            metricsPorts.stream().map(m -> "http://" + Net.HOST + ":" + m + "/metrics").toList());
    for (int t : List.of(8, 50)) {
      int rate = etcdRate(t);
      VcorfuCluster c = clusterUp("append-t" + t);
      try {
        List<String> args = appendArgs(c, t, s.cold(), null);
        args.addAll(List.of("--metrics", metrics));
        bench("append vcorfu t" + t, args);
      } finally {
        c.down();
      }
      etcd.start();
      try {
        etcdPut("append etcd t" + t + " cold", t, (long) rate * s.cold());
        long total = (long) rate * s.duration();
        String cost =
            etcd.costMeter()
                .around(
                    CostMeter.APPEND_WARM,
                    total,
                    () -> etcdPut("append etcd t" + t + " warm", t, total));
        results.addShown("append etcd t" + t + " cost", cost);
      } finally {
        etcd.stop();
      }
      load("append t" + t);
    }
  }

  /**
   * {@code bench append} against C: T clients on T connections, durable 1 KB appends to 32 streams,
   * a cold window of COLD s (0: none), the warm window and its cost to the machine; TLS given, as a
   * client presenting the run's client certificate.
   */
  private List<String> appendArgs(VcorfuCluster c, int t, int cold, BenchTls tls) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "append",
                "--endpoint",
                c.endpoints(3),
                "--threads",
                "" + t,
                "--conns",
                "" + t,
                "--size",
                "1024",
                "--streams",
                "32",
                "--prefix",
                "c" + t,
                "--cold",
                "" + cold,
                "--warmup",
                "" + s.warmup(),
                "--duration",
                "" + s.duration(),
                "--cost",
                "--callers",
                s.callers()));
    if (s.clientWrites()) {
      args.add("--client-writes");
    }
    if (tls != null) {
      args.addAll(tls.clientFlags());
    }
    return args;
  }

  /**
   * The tls part: what TLS costs replicated appends at 8 clients, vcorfu beside etcd. Each round
   * measures each system plaintext and with TLS (servers requiring client certificates, members and
   * nodes speaking TLS to each other), every measurement on a fresh cluster; odd rounds take
   * plaintext first, even rounds TLS first, so that the machine's drift falls on both. vcorfu's
   * warm window follows --warmup s of load (its nodes' compilers need it); etcd, compiled ahead, is
   * warmed by 4,000 puts. Each warm window's cost to the machine comes from /proc/stat on both
   * sides (the nodes' /metrics are TLS-only then, so vcorfu's fsyncs per append are not counted).
   */
  private void tls() throws IOException, InterruptedException {
    BenchTls files = BenchTls.make(workdir.resolve("tls"));
    int t = 8;
    int rate = etcdRate(t);
    for (int r = 1; r <= s.runs(); r++) {
      List<BenchTls> order = r % 2 == 1 ? Arrays.asList(null, files) : Arrays.asList(files, null);
      for (BenchTls tls : order) {
        String mode = tls == null ? "plain" : "tls";
        VcorfuCluster c = clusterUp("tls-" + mode + "-" + r, tls);
        try {
          bench("tls vcorfu " + mode + " " + r, appendArgs(c, t, 0, tls));
        } finally {
          c.down();
        }
      }
      for (BenchTls tls : order) {
        String mode = tls == null ? "plain" : "tls";
        etcd.withTls(tls).start();
        try {
          etcdPut("tls etcd " + mode + " " + r + " warm-up", t, ETCD_WARM_UP, tls);
          long total = (long) rate * s.duration();
          String tag = "tls etcd " + mode + " " + r;
          String cost =
              etcd.costMeter()
                  .around(CostMeter.APPEND_WARM, total, () -> etcdPut(tag, t, total, tls));
          results.addShown(tag + " cost", cost);
        } finally {
          etcd.stop();
          etcd.withTls(null);
        }
      }
      load("tls round " + r);
    }
  }

  /** Puts a second the etcd runs at T clients are sized by (see the comment above append()). */
  private static int etcdRate(int t) {
    return t == 8 ? 4000 : 8000;
  }

  private void etcdPut(String tag, int clients, long total)
      throws IOException, InterruptedException {
    etcdPut(tag, clients, total, null);
  }

  private void etcdPut(String tag, int clients, long total, BenchTls tls)
      throws IOException, InterruptedException {
    List<String> args = EtcdBench.putArgs(etcd.endpoints(), 1024, clients, clients, total);
    if (tls != null) {
      args.addAll(tls.etcdBenchFlags());
    }
    List<String> cmd = new ArrayList<>(List.of(etcdBench.toString()));
    cmd.addAll(args);
    results.measure(
        tag,
        "etcd-bench " + String.join(" ", args),
        cmd,
        report -> EtcdBench.putLine(report, clients, clients, total));
  }

  private void ycsb() throws IOException, InterruptedException {
    for (String w : List.of("c", "b")) {
      List<String> common =
          List.of(
              "--workload",
              w,
              "--records",
              "" + s.records(),
              "--operations",
              "1000000000",
              "--threads",
              "8",
              "--cold-seconds",
              "" + s.ycsbCold(),
              "--warm-after",
              "" + s.ycsbWarmAfter(),
              "-p",
              "table=usertable_" + w,
              "-p",
              "maxexecutiontime=" + s.ycsbSeconds());
      VcorfuCluster c = clusterUp("ycsb-" + w);
      try {
        List<String> args =
            new ArrayList<>(List.of("ycsb", "--db", "vcorfu", "--endpoint", c.endpoints(3)));
        args.addAll(common);
        args.addAll(List.of("-p", "vcorfu.buckets=100", "-p", "vcorfu.read-lease-ms=1000"));
        bench("ycsb vcorfu " + w, args);
      } finally {
        c.down();
      }
      etcd.start();
      try {
        List<String> args =
            new ArrayList<>(List.of("ycsb", "--db", "etcd", "--endpoint", etcd.endpoints()));
        args.addAll(common);
        bench("ycsb etcd " + w, args);
      } finally {
        etcd.stop();
      }
      load("ycsb " + w);
    }
  }
}
