package io.vcorfu.benchmarks.suite;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench suite degraded}: the paper's Figure 10 on 127.0.0.1. Appends to one stream
 * and a reader following it, per second, across the kill -9 of the stream's only replica: the log
 * serves the stream (degraded mode) until a spare, added with {@code cluster add-node}, takes the
 * chain up and copies the stream. Events are recorded as seen (kill, degraded, add-node, taken-up,
 * copied); WORKDIR/figure10.tsv ({@link DegradedTimeline}) and, with {@code bench plot},
 * WORKDIR/figure10.png. Every process is one of the run, ended by its pid.
 */
@Command(
    name = "degraded",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "The paper's Figure 10: appends to one stream and a reader following it, per second, across"
          + " the kill -9 of the stream's only replica, degraded mode, and a spare that takes the"
          + " stream chain up. Writes WORKDIR/figure10.tsv (second, appends, reads, event,"
          + " degraded_log_reads) and WORKDIR/figure10.png."
    })
public final class DegradedSuite implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String COPIED = "copied the older entries";

  @Option(
      names = "--threads",
      defaultValue = "4",
      description = "Appending client threads; one more client reads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--size",
      defaultValue = "32",
      description = "Bytes per value (the paper: 32; default ${DEFAULT-VALUE}).")
  int size;

  @Option(
      names = "--before-s",
      defaultValue = "15",
      description = "Seconds of load before the kill -9 (default ${DEFAULT-VALUE}).")
  int beforeS;

  @Option(
      names = "--degraded-s",
      defaultValue = "20",
      description = "Seconds from the kill to `cluster add-node` (default ${DEFAULT-VALUE}).")
  int degradedS;

  @Option(
      names = "--after-s",
      defaultValue = "25",
      description = "Seconds of load after the add-node (default ${DEFAULT-VALUE}).")
  int afterS;

  @Option(
      names = "--workdir",
      description = "Scratch directory, kept afterwards (default: a fresh one, removed).")
  Path workdir;

  @Option(
      names = "--base-port",
      defaultValue = "19700",
      description = "ZooKeeper on P, the nodes on P+1..P+3 (default ${DEFAULT-VALUE}).")
  int basePort;

  private Processes processes;
  private VcorfuProcesses vcorfu;
  private Path dir;

  /** Fails on a negative value, as the script's check of unsigned integers did. */
  void validate() {
    String[] names = {
      "--threads", "--size", "--before-s", "--degraded-s", "--after-s", "--base-port"
    };
    int[] values = {threads, size, beforeS, degradedS, afterS, basePort};
    for (int i = 0; i < names.length; i++) {
      if (values[i] < 0) {
        throw new IllegalArgumentException(
            names[i] + " must be a non-negative integer, got '" + values[i] + "'");
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    validate();
    try (Processes p = new Processes()) {
      processes = p;
      vcorfu = new VcorfuProcesses(p);
      dir = Workdirs.open(workdir, "degraded", p);
      String zk = Net.HOST + ":" + basePort;
      vcorfu.startZookeeper(dir.resolve("zk"), basePort, List.of());
      VcorfuCluster nodes =
          new VcorfuCluster(
              vcorfu,
              p,
              dir,
              "figure10",
              List.of(basePort + 1, basePort + 2, basePort + 3),
              List.of("-Xmx1g"),
              i -> List.of("--plaintext", "--zookeeper", zk, "--cluster", "figure10"));
      for (int i = 0; i < 3; i++) {
        nodes.launch(i);
      }
      for (int i = 0; i < 3; i++) {
        nodes.awaitReady(i);
      }
      String n0 = nodes.endpoint(0);
      String n1 = nodes.endpoint(1);
      String n2 = nodes.endpoint(2);
      vcorfu.runCli(
          List.of(
              "cluster",
              "init",
              "--zookeeper",
              zk,
              "--cluster",
              "figure10",
              "--nodes",
              n0,
              "--stream-nodes",
              n1,
              "--replication",
              "1"),
          dir.resolve("init.log"),
          "cluster init");
      System.err.print(Files.readString(dir.resolve("init.log")));
      measure(nodes, n0, n1, n2);
    }
    return 0;
  }

  private void measure(VcorfuCluster nodes, String n0, String n1, String n2)
      throws IOException, InterruptedException {
    int total = beforeS + degradedS + afterS;
    Processes.Started bench =
        processes.start(
            "bench stream-timeline",
            dir.resolve("timeline.log"),
            dir.resolve("bench.err"),
            vcorfu.bench(
                List.of(
                    "stream-timeline",
                    "--endpoint",
                    n0 + "," + n2,
                    "--threads",
                    "" + threads,
                    "--size",
                    "" + size,
                    "--duration",
                    "" + total)));
    long start = System.nanoTime();
    List<DegradedTimeline.Event> events = new ArrayList<>();
    Thread.sleep(beforeS * 1000L);
    Processes.Started victim = nodes.node(1);
    SuiteLog.log("kill -9 " + n1 + " (pid " + victim.pid() + "), the only stream replica");
    Processes.kill9(victim);
    events.add(DegradedTimeline.Event.now("kill"));
    awaitLayout(n0 + "," + n2, chain -> chain.isEmpty());
    events.add(DegradedTimeline.Event.now("degraded"));
    long addAt = start + (beforeS + degradedS) * 1_000_000_000L;
    Thread.sleep(Math.max(0, (addAt - System.nanoTime()) / 1_000_000));
    SuiteLog.log("cluster add-node " + n2);
    events.add(DegradedTimeline.Event.now("add-node"));
    vcorfu.runCli(
        List.of("cluster", "add-node", "--endpoint", n0, n2),
        dir.resolve("add-node.log"),
        "cluster add-node");
    System.err.print(Files.readString(dir.resolve("add-node.log")));
    awaitLayout(n0 + "," + n2, chain -> chain.equals(List.of(n2)));
    events.add(DegradedTimeline.Event.now("taken-up"));
    Path n2Log = dir.resolve("n2/server.log");
    while (!Files.readString(n2Log).contains(COPIED)) {
      if (!bench.alive()) {
        throw new IllegalStateException("the load ended before " + n2 + " copied the stream");
      }
      Thread.sleep(200);
    }
    events.add(DegradedTimeline.Event.now("copied"));
    int status = Processes.waitFor(bench);
    processes.stop(bench);
    if (status != 0) {
      Workdirs.showTail(dir.resolve("bench.err"), 5);
      throw new IllegalStateException("the load failed (exit status " + status + ")");
    }
    StringBuilder lines = new StringBuilder();
    events.forEach(e -> lines.append(e.line()).append('\n'));
    Files.writeString(dir.resolve("events.txt"), lines);
    String tsv = DegradedTimeline.tsv(Files.readAllLines(dir.resolve("timeline.log")), events);
    Files.writeString(dir.resolve("figure10.tsv"), tsv);
    System.out.print(tsv);
    System.out.flush();
    plot();
  }

  private void plot() throws IOException, InterruptedException {
    Path log = dir.resolve("plot.log");
    Processes.Started plot =
        processes.start(
            "bench plot",
            log,
            vcorfu.bench(
                List.of(
                    "plot",
                    "--input",
                    dir.resolve("figure10.tsv").toString(),
                    "--output",
                    dir.resolve("figure10.png").toString(),
                    "--title",
                    "Appends and reads of one stream across the failure of its only replica",
                    "--left-label",
                    "appends/s",
                    "--right-label",
                    "entries read/s")));
    int status = Processes.waitFor(plot);
    processes.stop(plot);
    System.err.print(Files.readString(log));
    if (status == 0) {
      SuiteLog.log("plot: " + dir.resolve("figure10.png"));
    }
  }

  /** Polls {@code cluster status} until the newest layout's first stream chain meets WANTED. */
  private void awaitLayout(String endpoints, Predicate<List<String>> wanted)
      throws IOException, InterruptedException {
    Path out = dir.resolve("status.json");
    while (true) {
      Processes.Started status =
          processes.start(
              "cluster status",
              out,
              dir.resolve("status.err"),
              vcorfu.cli(
                  List.of("cluster", "status", "--endpoint", endpoints, "--output", "json")));
      Processes.waitFor(status);
      processes.stop(status);
      Optional<List<String>> chain = Optional.empty();
      try {
        chain = new ClusterStatus(JSON.readTree(Files.readString(out))).firstStreamChain();
      } catch (IOException unreadable) {
        // not an answer yet: ask again
      }
      if (chain.isPresent() && wanted.test(chain.get())) {
        return;
      }
      Thread.sleep(200);
    }
  }
}
