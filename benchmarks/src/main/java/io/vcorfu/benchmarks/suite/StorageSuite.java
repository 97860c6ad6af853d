package io.vcorfu.benchmarks.suite;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench suite storage}: does storage stay bounded on a steady update load? {@code
 * bench ycsb} workload A round after round against one durable node, or a three-node R = 3 cluster
 * (one ZooKeeper), default settings, every one a process of the run ended by its pid; after each
 * round the bytes on disk (every node's replicas directory, as {@code du -sb} counts them) and the
 * run phase's rate ({@link StorageTable}), then each node's storage from /status.json. NODE_ARGS in
 * the environment adds {@code vcorfu server} arguments for every node.
 */
@Command(
    name = "storage",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Does storage stay bounded on a steady update load? `bench ycsb` workload A round after"
          + " round against one durable node (or a three-node R = 3 cluster); after each round the"
          + " data on disk and the run phase's rate, each beside round 1's, then each node's"
          + " storage from /status.json. Environment: NODE_ARGS, more `vcorfu server` arguments"
          + " for every node (e.g. --segment-size-mb 4)."
    })
public final class StorageSuite implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(
      names = "--rounds",
      defaultValue = "10",
      description = "Rounds of load + run against the same nodes (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--records",
      defaultValue = "1000",
      description = "YCSB records, 10 fields of 100 bytes (default ${DEFAULT-VALUE}).")
  int records;

  @Option(
      names = "--operations",
      defaultValue = "100000",
      description = "Run-phase operations per round (default ${DEFAULT-VALUE}).")
  int operations;

  @Option(
      names = "--threads",
      defaultValue = "8",
      description = "YCSB client threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--cluster",
      description = "A three-node cluster (R = 3, one ZooKeeper) instead of one node.")
  boolean cluster;

  @Option(
      names = "--workdir",
      description = "Scratch directory, kept afterwards (default: a fresh one, removed).")
  Path workdir;

  @Option(
      names = "--base-port",
      defaultValue = "19700",
      description =
          "The node on P (cluster: ZooKeeper on P, nodes on P+1..P+3; default ${DEFAULT-VALUE}).")
  int base;

  @Option(
      names = "--settle",
      defaultValue = "0",
      description =
          "Also measure the disk after S seconds without load (default ${DEFAULT-VALUE}: not"
              + " measured).")
  int settle;

  /** Fails on a value the run cannot use. */
  void validate() {
    if (rounds < 0 || settle < 0) {
      throw new IllegalArgumentException("--rounds and --settle must not be negative");
    }
    ClusterOptions.positive("--records", records);
    ClusterOptions.positive("--operations", operations);
    ClusterOptions.positive("--threads", threads);
    ClusterOptions.positive("--base-port", base);
  }

  @Override
  public Integer call() throws Exception {
    validate();
    String nodeArgs = System.getenv("NODE_ARGS");
    List<String> extra =
        nodeArgs == null || nodeArgs.isBlank() ? List.of() : List.of(nodeArgs.trim().split("\\s+"));
    try (Processes processes = new Processes()) {
      VcorfuProcesses vcorfu = new VcorfuProcesses(processes);
      Path dir = Workdirs.open(workdir, "storage", processes);
      List<Integer> ports = new ArrayList<>();
      String endpoint;
      if (cluster) {
        vcorfu.startZookeeper(dir.resolve("zk"), base, List.of());
        List<Processes.Started> nodes = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
          int port = base + i;
          List<String> args =
              new ArrayList<>(
                  List.of(
                      "--data-dir",
                      dir.resolve("n" + i + "/data").toString(),
                      "--metrics-port",
                      "" + (port + 100),
                      "--plaintext",
                      "--zookeeper",
                      Net.HOST + ":" + base,
                      "--cluster",
                      "storage"));
          args.addAll(extra);
          nodes.add(vcorfu.launchNode("vcorfu n" + i, dir.resolve("n" + i), port, List.of(), args));
          ports.add(port);
        }
        for (Processes.Started n : nodes) {
          VcorfuProcesses.awaitReady(n);
        }
        endpoint = String.join(",", ports.stream().map(p -> Net.HOST + ":" + p).toList());
        vcorfu.runCli(
            List.of(
                "cluster",
                "init",
                "--zookeeper",
                Net.HOST + ":" + base,
                "--cluster",
                "storage",
                "--replication",
                "3",
                "--nodes",
                endpoint),
            dir.resolve("init.log"),
            "cluster init");
        System.err.print(Files.readString(dir.resolve("init.log")));
      } else {
        List<String> args =
            new ArrayList<>(
                List.of(
                    "--data-dir",
                    dir.resolve("n1/data").toString(),
                    "--metrics-port",
                    "" + (base + 100)));
        args.addAll(extra);
        VcorfuProcesses.awaitReady(
            vcorfu.launchNode("vcorfu n1", dir.resolve("n1"), base, List.of(), args));
        ports.add(base);
        endpoint = Net.HOST + ":" + base;
      }
      measure(processes, vcorfu, dir, endpoint);
      for (int port : ports) {
        String body = Net.get(port + 100, "/status.json");
        if (body == null) {
          throw new IllegalStateException("no /status.json from " + Net.HOST + ":" + (port + 100));
        }
        System.out.println(StorageTable.nodeLine(Net.HOST + ":" + port, JSON.readTree(body)));
      }
    }
    return 0;
  }

  private void measure(Processes processes, VcorfuProcesses vcorfu, Path dir, String endpoint)
      throws IOException, InterruptedException {
    long firstDisk = 0;
    long firstOps = 0;
    Long settledFirst = null;
    System.out.println(StorageTable.header());
    for (int r = 1; r <= rounds; r++) {
      Path out = dir.resolve("ycsb-" + r + ".out");
      Processes.Started ycsb =
          processes.start(
              "ycsb round " + r,
              out,
              dir.resolve("ycsb-" + r + ".err"),
              vcorfu.bench(
                  List.of(
                      "ycsb",
                      "--db",
                      "vcorfu",
                      "--workload",
                      "a",
                      "--records",
                      "" + records,
                      "--operations",
                      "" + operations,
                      "--threads",
                      "" + threads,
                      "--endpoint",
                      endpoint,
                      "--output",
                      "json")));
      Processes.waitFor(ycsb);
      processes.stop(ycsb);
      List<String> lines = Files.readAllLines(out);
      if (lines.isEmpty()) {
        Workdirs.showTail(dir.resolve("ycsb-" + r + ".err"), 5);
        throw new IllegalStateException("round " + r + ": bench ycsb printed nothing");
      }
      long ops = StorageTable.runRate(lines.get(lines.size() - 1));
      long bytes = disk(dir);
      if (r == 1) {
        firstDisk = bytes;
        firstOps = ops;
      }
      Long settled = null;
      if (settle > 0) {
        Thread.sleep(settle * 1000L);
        settled = disk(dir);
        settledFirst = settledFirst == null ? settled : settledFirst;
      }
      System.out.println(
          StorageTable.row(r, bytes, firstDisk, ops, firstOps, settled, settledFirst));
      System.out.flush();
    }
  }

  /** The bytes of DIR/n{i}/data/replicas, every file and directory, as {@code du -sb} adds them. */
  static long disk(Path dir) throws IOException {
    long total = 0;
    try (DirectoryStream<Path> nodes = Files.newDirectoryStream(dir, "n*")) {
      for (Path n : nodes) {
        Path replicas = n.resolve("data/replicas");
        if (Files.isDirectory(replicas)) {
          try (Stream<Path> all = Files.walk(replicas)) {
            total += all.mapToLong(StorageSuite::size).sum();
          }
        }
      }
    }
    return total;
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      // a segment removed while counting (compaction) counts nothing
      if (Files.exists(p)) {
        throw new UncheckedIOException(e);
      }
      return 0;
    }
  }
}
