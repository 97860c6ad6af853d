package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code vcorfu bench suite cluster}: a three-node vcorfu cluster (R = 3) against a three-member
 * etcd cluster on 127.0.0.1, interleaved (vcorfu, then etcd, under the same load) so that both see
 * the same machine; then markdown tables ({@link ClusterSummary}). One ZooKeeper for the whole run;
 * every measurement gets a fresh vcorfu cluster (new data directories, a cluster name of its own,
 * durable nodes, -Xmx1g) or fresh etcd data directories.
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Three vcorfu nodes (R = 3) against a three-member etcd cluster on 127.0.0.1, interleaved;"
          + " then markdown tables. Parts:",
      "  failover  per round, kill -9 of vcorfu's sequencer, of a vcorfu replica, of etcd's leader"
          + " (`bench failover`); kill -> first ack and the longest gap between acks.",
      "  pause     as failover, but SIGSTOP for --pause-s s, then SIGCONT: sequencer-paused,"
          + " replica-paused, leader-paused, follower-paused.",
      "  append    durable 1 KB appends to 32 streams, T = 8 and 50 clients on T connections"
          + " (`bench append --cost`) against etcd-bench put, cold and warm, with each warm"
          + " append's cost to the whole machine.",
      "  ycsb      YCSB C then B, 8 threads, --records records (`bench ycsb --db vcorfu|etcd`).",
      "  tls       per round (--runs), appends at 8 clients as in append, each system plaintext and"
          + " with TLS everywhere (client certificates required), the order alternated; what"
          + " TLS costs each.",
      "Every process the run starts is stopped by its pid, also on failure or interrupt. Progress"
          + " goes to standard error; result lines and the summary to standard output."
    })
public final class ClusterSuite implements Callable<Integer> {
  @Mixin ClusterOptions options = new ClusterOptions();

  @Override
  public Integer call() throws Exception {
    ClusterOptions.Settings s = options.settings();
    try (Processes processes = new Processes()) {
      Path workdir = Workdirs.open(options.workdir, "cluster", processes);
      new ClusterRun(s, processes, workdir, options.out).run();
    }
    return 0;
  }

  /** The summary file's text: the tables and the load lines, with the run's heading. */
  static String summary(ClusterOptions.Settings s, List<String> results, String sentence) {
    StringBuilder b = new StringBuilder();
    b.append("# Cluster: three vcorfu nodes (R = 3) vs a three-member etcd cluster, 127.0.0.1\n\n");
    b.append(sentence).append("\n\n");
    b.append(
        ClusterSummary.of(
            results,
            new ClusterSummary.Windows(
                s.cold(), s.warmup(), s.duration(), s.ycsbCold(), s.ycsbWarmAfter())));
    b.append("Load average through the run:\n\n");
    b.append(ClusterSummary.loadLines(results));
    return b.toString();
  }

  /** Writes the summary and, when OUT is given, it and every raw result line to OUT. */
  static void publish(String summary, List<String> results, Path out) throws IOException {
    System.out.println();
    System.out.print(summary);
    System.out.flush();
    if (out != null) {
      Path parent = out.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      List<String> text = new ArrayList<>();
      text.add(summary);
      text.add("## Raw result lines\n");
      text.add("```");
      text.addAll(results);
      text.add("```");
      Files.writeString(out, String.join("\n", text) + "\n");
      SuiteLog.log("wrote " + out);
    }
  }
}
