package io.vcorfu.benchmarks.suite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench suite compaction}: what background compaction costs the foreground. One
 * durable node (a process of the run, ended by its pid), default settings: two interleaved streams
 * X and Y filled, {@code bench append} measured (the baseline), X trimmed away so that every sealed
 * segment is half dead, {@code bench append} measured again while the node compacts; both rates,
 * their ratio, and the node's storage (from /status.json) around them.
 */
@Command(
    name = "compaction",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "What background compaction costs the foreground: one durable node, two interleaved streams"
          + " filled, appends measured, one stream trimmed away, appends measured again while the"
          + " node compacts; both rates, their ratio and the node's storage around them."
    })
public final class CompactionSuite implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> STORAGE =
      List.of(
          "files",
          "fileBytes",
          "live",
          "liveBytes",
          "segments",
          "segments",
          "compacted",
          "segmentsCompacted",
          "copied",
          "compactionCopiedBytes",
          "reclaimed",
          "compactionReclaimedBytes",
          "compacting",
          "compacting");

  @Option(
      names = "--fill",
      defaultValue = "120000",
      description =
          "Entries written to each of X and Y first (default ${DEFAULT-VALUE}: about 250 MB in"
              + " all).")
  int fill;

  @Option(
      names = "--seconds",
      defaultValue = "15",
      description = "Length of each measured `bench append` (default ${DEFAULT-VALUE}).")
  int seconds;

  @Option(
      names = "--threads",
      defaultValue = "4",
      description =
          "Writer threads of the measured appends, 1 KB values (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--workdir",
      description = "Scratch directory, kept afterwards (default: a fresh one, removed).")
  Path workdir;

  @Option(
      names = "--base-port",
      defaultValue = "19900",
      description = "The node's port (metrics on P + 100; default ${DEFAULT-VALUE}).")
  int port;

  private Processes processes;
  private VcorfuProcesses vcorfu;
  private String endpoint;

  @Override
  public Integer call() throws Exception {
    ClusterOptions.positive("--fill", fill);
    ClusterOptions.positive("--seconds", seconds);
    ClusterOptions.positive("--threads", threads);
    try (Processes p = new Processes()) {
      processes = p;
      vcorfu = new VcorfuProcesses(p);
      Path dir = Workdirs.open(workdir, "compaction", p);
      endpoint = Net.HOST + ":" + port;
      Processes.Started node =
          vcorfu.launchNode(
              "node",
              dir.resolve("n1"),
              port,
              List.of(),
              List.of(
                  "--data-dir",
                  dir.resolve("n1/data").toString(),
                  "--metrics-port",
                  "" + (port + 100)));
      VcorfuProcesses.awaitReady(node);
      SuiteLog.log("filling X and Y with " + fill + " entries each");
      // One writer per stream at once: their entries interleave in every segment.
      int fillSeconds = Math.max(5, fill / 2500);
      List<Processes.Started> writers = new ArrayList<>();
      for (String name : List.of("x", "y")) {
        writers.add(
            p.start(
                "fill " + name,
                dir.resolve("fill-" + name + ".out"),
                dir.resolve("fill-" + name + ".err"),
                vcorfu.bench(
                    List.of(
                        "append",
                        "--endpoint",
                        endpoint,
                        "--threads",
                        "4",
                        "--size",
                        "1024",
                        "--duration",
                        "" + fillSeconds,
                        "--prefix",
                        name,
                        "--streams",
                        "1"))));
      }
      for (Processes.Started w : writers) {
        Processes.waitFor(w);
        p.stop(w);
      }
      System.out.println("after the fill:        " + storage());
      long base = rate(measure(dir, "base"));
      System.out.println("baseline:              " + base + " appends/s");
      String tail =
          capture(dir, "tail", List.of("log", "tail", "--endpoint", endpoint, "--stream", "x-0"));
      String[] words = Markdown.words(tail.lines().findFirst().orElse(""));
      if (words.length < 2) {
        throw new IllegalStateException("no tail of x-0 in: " + tail);
      }
      String trimmed =
          capture(
              dir,
              "trim",
              List.of(
                  "log",
                  "trim",
                  "--endpoint",
                  endpoint,
                  "--stream",
                  "x-0",
                  "--before",
                  "" + (Long.parseLong(words[1]) + 1)));
      System.err.print(trimmed.isEmpty() ? "" : trimmed + "\n");
      // The log's copies go a few seconds later; then every sealed segment is about half dead.
      Thread.sleep(5000);
      System.out.println("before the measurement: " + storage());
      long during = rate(measure(dir, "during"));
      System.out.println("during compaction:     " + during + " appends/s");
      System.out.println("after the measurement: " + storage());
      System.out.println("ratio " + Markdown.fixed((double) during / base, 2));
    }
    return 0;
  }

  /** The last line of a measured {@code bench append --output json}. */
  private String measure(Path dir, String prefix) throws IOException, InterruptedException {
    String out =
        vcorfuRun(
            dir,
            prefix,
            vcorfu.bench(
                List.of(
                    "append",
                    "--endpoint",
                    endpoint,
                    "--threads",
                    "" + threads,
                    "--size",
                    "1024",
                    "--duration",
                    "" + seconds,
                    "--prefix",
                    prefix,
                    "--streams",
                    "8",
                    "--output",
                    "json")));
    List<String> lines = out.lines().toList();
    return lines.isEmpty() ? "{}" : lines.get(lines.size() - 1);
  }

  private String capture(Path dir, String name, List<String> args)
      throws IOException, InterruptedException {
    return vcorfuRun(dir, name, vcorfu.cli(args));
  }

  private String vcorfuRun(Path dir, String name, List<String> command)
      throws IOException, InterruptedException {
    Path out = dir.resolve(name + ".out");
    Processes.Started p = processes.start(name, out, dir.resolve(name + ".err"), command);
    int status = Processes.waitFor(p);
    processes.stop(p);
    if (status != 0) {
      Workdirs.showTail(dir.resolve(name + ".err"), 5);
      throw new IllegalStateException(name + " exited with status " + status);
    }
    return Files.readString(out).trim();
  }

  private String storage() throws IOException {
    String body = Net.get(port + 100, "/status.json");
    return storageLine(JSON.readTree(body == null ? "{}" : body));
  }

  /** "files F live L segments S compacted C copied B reclaimed R compacting K" of STATUS. */
  static String storageLine(JsonNode status) {
    JsonNode s = status.path("storage");
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < STORAGE.size(); i += 2) {
      JsonNode v = s.path(STORAGE.get(i + 1));
      String text = v.isBoolean() ? (v.asBoolean() ? "True" : "False") : v.asText();
      b.append(i == 0 ? "" : " ").append(STORAGE.get(i)).append(' ').append(text);
    }
    return b.toString();
  }

  /** {@code ops_per_second} of a bench JSON line, rounded as Python's round() does. */
  static long rate(String json) throws IOException {
    return (long) Math.rint(JSON.readTree(json).path("ops_per_second").asDouble());
  }
}
