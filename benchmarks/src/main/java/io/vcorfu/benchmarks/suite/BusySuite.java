package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench suite busy}: does a busy host make the failure detector remove healthy nodes?
 * A three-node durable cluster (R = 3) on 127.0.0.1 runs {@code bench append} while processor hogs
 * (busy-looping shells, processes of the run ended by pid) compete with it at the same priority;
 * afterwards the nodes the manager judged down although every node ran throughout are counted from
 * their logs. Prints one line per run.
 */
@Command(
    name = "busy",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Does a busy host make the failure detector remove healthy nodes? Three durable nodes"
          + " (R = 3) run `bench append` beside busy-looping processor hogs; per run, the healthy"
          + " nodes judged down (under load, and while the cluster started) and the appends'"
          + " throughput and latency."
    })
public final class BusySuite implements Callable<Integer> {
  private static final DateTimeFormatter LOG_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");
  private static final String VERDICT = "unresponsive for over";

  @Option(
      names = "--node-flags",
      defaultValue = "",
      description =
          "Extra `vcorfu server` flags for every node, split on spaces (for instance"
              + " \"--probe-interval-ms 100 --failure-timeout-ms 400\"; default none).")
  String nodeFlags;

  @Option(
      names = "--seconds",
      defaultValue = "60",
      description = "How long the load and the hogs run, per run (default ${DEFAULT-VALUE}).")
  int seconds;

  @Option(
      names = "--hogs",
      description = "Busy-looping shell processes beside the nodes (default: one per core).")
  Integer hogs;

  @Option(
      names = "--threads",
      defaultValue = "8",
      description =
          "`bench append` writer threads, 1 KB values, 8 streams (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--runs",
      defaultValue = "1",
      description = "Fresh clusters, one after another (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--workdir",
      description =
          "Scratch directory, kept afterwards with every node's log (default: a fresh one under"
              + " /tmp, removed at the end).")
  Path workdir;

  @Option(
      names = "--base-port",
      defaultValue = "19500",
      description = "ZooKeeper on P, nodes on P+1..P+3 (default ${DEFAULT-VALUE}).")
  int basePort;

  int hogCount() {
    return hogs != null ? hogs : Machine.cores();
  }

  List<String> extraNodeFlags() {
    return nodeFlags.isBlank() ? List.of() : List.of(nodeFlags.trim().split("\\s+"));
  }

  void check() {
    ClusterOptions.positive("--seconds", seconds);
    ClusterOptions.positive("--hogs", hogCount());
    ClusterOptions.positive("--threads", threads);
    ClusterOptions.positive("--runs", runs);
    ClusterOptions.positive("--base-port", basePort);
    if (basePort + 3 > 65535) {
      throw new IllegalArgumentException("--base-port must leave room for 4 ports below 65536");
    }
  }

  @Override
  public Integer call() throws Exception {
    check();
    try (Processes processes = new Processes()) {
      Path dir = Workdirs.open(workdir, "busy", processes);
      VcorfuProcesses vcorfu = new VcorfuProcesses(processes);
      String zk = Net.HOST + ":" + basePort;
      vcorfu.startZookeeper(dir.resolve("zk"), basePort, List.of("-Xmx256m"));
      System.out.println(
          "node-flags: "
              + (nodeFlags.isBlank() ? "(defaults)" : nodeFlags)
              + "; "
              + hogCount()
              + " hogs, "
              + threads
              + " writers, "
              + seconds
              + " s per run");
      for (int r = 1; r <= runs; r++) {
        System.out.println(run(processes, vcorfu, dir, zk, r));
        System.out.flush();
      }
    }
    return 0;
  }

  private String run(Processes processes, VcorfuProcesses vcorfu, Path dir, String zk, int r)
      throws IOException, InterruptedException {
    String name = "busy-" + r;
    List<String> flags = extraNodeFlags();
    VcorfuCluster c =
        new VcorfuCluster(
            vcorfu,
            processes,
            dir.resolve(name),
            name,
            List.of(basePort + 1, basePort + 2, basePort + 3),
            List.of("-Xmx1g"),
            i -> {
              List<String> a =
                  new ArrayList<>(List.of("--plaintext", "--zookeeper", zk, "--cluster", name));
              a.addAll(flags);
              return a;
            });
    List<Processes.Started> hogProcesses = new ArrayList<>();
    try {
      c.up(3, zk);
      String loadFrom = ZonedDateTime.now(ZoneOffset.UTC).format(LOG_TIME);
      for (int h = 0; h < hogCount(); h++) {
        hogProcesses.add(
            processes.start(
                "hog " + h,
                dir.resolve(name).resolve("hog-" + h + ".log"),
                List.of("bash", "-c", "while :; do :; done")));
      }
      Path out = dir.resolve(name).resolve("bench.out");
      Processes.Started bench =
          processes.start(
              "bench append",
              out,
              vcorfu.bench(
                  List.of(
                      "append",
                      "--endpoint",
                      c.endpoints(3),
                      "--threads",
                      "" + threads,
                      "--streams",
                      "8",
                      "--size",
                      "1024",
                      "--duration",
                      "" + seconds)));
      Processes.waitFor(bench);
      processes.stop(bench);
      hogProcesses.forEach(processes::stop);
      hogProcesses.clear();
      List<String> logs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        try (Stream<String> lines =
            Files.lines(dir.resolve(name).resolve("n" + i + "/server.log"))) {
          lines.forEach(logs::add);
        }
      }
      long[] judged = verdicts(logs, loadFrom);
      List<String> benchOut = Files.readAllLines(out);
      String line =
          benchOut.stream()
              .filter(l -> l.contains("appends/s"))
              .findFirst()
              .orElse(benchOut.isEmpty() ? "" : benchOut.get(benchOut.size() - 1));
      return "run "
          + r
          + ": healthy nodes judged down: "
          + judged[1]
          + " under load, "
          + judged[0]
          + " while the cluster started; bench: "
          + line;
    } finally {
      hogProcesses.forEach(processes::stop);
      c.down();
    }
  }

  /**
   * The nodes' verdicts "unresponsive for over" in LOG lines (each starting with its UTC time,
   * which sorts as text), split at LOAD_FROM: {before, at or after}.
   */
  static long[] verdicts(List<String> log, String loadFrom) {
    long before = 0;
    long after = 0;
    for (String line : log) {
      if (line.contains(VERDICT)) {
        String at = line.substring(0, Math.min(23, line.length()));
        if (at.compareTo(loadFrom) < 0) {
          before++;
        } else {
          after++;
        }
      }
    }
    return new long[] {before, after};
  }
}
