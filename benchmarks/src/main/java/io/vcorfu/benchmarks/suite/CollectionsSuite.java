package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench suite collections}: the three {@code bench collections} modes (the paper's
 * Figures 16 and 17) against one durable node that it starts (and ends, by its pid), then the raw
 * output and the summary tables of {@code CollectionsSummary} to the --out file. As the script it
 * replaces, it reads PORT (default 9751), KINDS (default smr,csmr), BUCKETS (default 10,100,1000),
 * DURATION (abort runs, seconds), MAX_UPDATES, DATA_DIR (default a fresh directory, removed at the
 * end) and VCORFU_JAVA_OPTS (every JVM's flags, default -XX:+UseParallelGC) from the environment.
 */
@Command(
    name = "collections",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "The three `bench collections` modes (paper Figures 16 and 17) against one durable node,"
          + " then the raw output and markdown summary tables to the --out file. Environment: PORT"
          + " (default 9751), KINDS (default smr,csmr), BUCKETS (default 10,100,1000), DURATION"
          + " (abort runs, seconds; default 10, --quick 1), MAX_UPDATES (default 102400, --quick"
          + " 2000), DATA_DIR (default a fresh directory, removed), VCORFU_JAVA_OPTS (default"
          + " -XX:+UseParallelGC)."
    })
public final class CollectionsSuite implements Callable<Integer> {
  static final String SUMMARY = "io.vcorfu.benchmarks.CollectionsSummary";

  @Option(
      names = "--quick",
      description =
          "A smoke test of a minute or two (2,000 updates, 1 s abort runs, 200-key clears).")
  boolean quick;

  @Option(
      names = "--out",
      description =
          "The summary and raw output's file (default benchmarks/target/collections-run.md).")
  Path out;

  private Path raw;

  /** The open, aborts and clear runs' arguments, as the script had them for QUICK and ENV. */
  static List<List<String>> runs(boolean quick, Map<String, String> env) {
    String updates = env(env, "MAX_UPDATES", quick ? "2000" : "102400");
    String duration = env(env, "DURATION", quick ? "1" : "10");
    String keys = quick ? "1000" : "100000";
    return List.of(
        List.of(
            "--mode",
            "open",
            "--max-updates",
            updates,
            "--steps",
            quick ? "3" : "4",
            "--reps",
            quick ? "2" : "5",
            "--keys",
            keys),
        List.of(
            "--mode",
            "aborts",
            "--duration",
            duration,
            "--writers-list",
            quick ? "2,16" : "2,4,8,16",
            "--keys",
            keys),
        List.of(
            "--mode",
            "clear",
            "--clear-keys",
            quick ? "200" : "10000",
            "--reps",
            quick ? "2" : "5"));
  }

  /** Every JVM's flags: VCORFU_JAVA_OPTS split on blanks, or -XX:+UseParallelGC. */
  static List<String> javaOpts(Map<String, String> env) {
    String v = env.get("VCORFU_JAVA_OPTS");
    return v == null || v.isEmpty()
        ? List.of("-XX:+UseParallelGC")
        : v.isBlank() ? List.of() : List.of(v.trim().split("\\s+"));
  }

  /** Whether a line of a bench run goes to the raw output. */
  static boolean kept(String line) {
    return line.startsWith("collections")
        || line.startsWith("stopped")
        || line.startsWith("vcorfu:");
  }

  @Override
  public Integer call() throws Exception {
    Map<String, String> env = System.getenv();
    int port = Integer.parseInt(env(env, "PORT", "9751"));
    String kinds = env(env, "KINDS", "smr,csmr");
    String buckets = env(env, "BUCKETS", "10,100,1000");
    List<String> jvm = javaOpts(env);
    Path file = out != null ? out : SuiteFiles.benchmarksDir().resolve("target/collections-run.md");
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    String classPath = System.getProperty("java.class.path");
    String summary;
    try (Processes processes = new Processes()) {
      Path scratch = Workdirs.open(null, "collections", processes);
      raw = scratch.resolve("raw.txt");
      Files.writeString(raw, "");
      String given = env.get("DATA_DIR");
      Path data =
          given == null || given.isEmpty()
              ? scratch.resolve("data")
              : Path.of(given).toAbsolutePath();
      Files.createDirectories(data);
      Net.requireFree(port);
      // The node hosts remote views of the collections (SMRMap, CSMRMap) for the clear mode.
      Processes.Started node =
          processes.start(
              "vcorfu",
              scratch.resolve("server.log"),
              java(
                  jvm,
                  classPath,
                  VcorfuProcesses.CLI,
                  List.of(
                      "server",
                      "--data-dir",
                      data.toString(),
                      "--port",
                      "" + port,
                      "--classpath",
                      classPath)));
      VcorfuProcesses.awaitReady(node);
      log(VcorfuProcesses.nodeHeader(node, port) + " (durable, data in " + data + ")");
      List<String> common =
          List.of("--endpoint", Net.HOST + ":" + port, "--kinds", kinds, "--buckets", buckets);
      for (List<String> run : runs(quick, env)) {
        List<String> args = new ArrayList<>(List.of("collections"));
        args.addAll(run);
        log("$ vcorfu bench collections " + String.join(" ", run) + " " + String.join(" ", common));
        args.addAll(common);
        Path output = scratch.resolve("bench.out");
        Processes.Started bench =
            processes.start(
                "bench collections", output, java(jvm, classPath, VcorfuProcesses.BENCH, args));
        Processes.waitFor(bench);
        processes.stop(bench);
        for (String line : Files.readAllLines(output)) {
          if (kept(line)) {
            log(line);
          }
        }
      }
      log("# " + Machine.utcNow() + " load at end: " + Machine.loadAverage());
      Path tables = scratch.resolve("summary.md");
      Processes.Started summarize =
          processes.start(
              "summary",
              tables,
              scratch.resolve("summary.err"),
              java(List.of(), classPath, SUMMARY, List.of(raw.toString())));
      int status = Processes.waitFor(summarize);
      processes.stop(summarize);
      if (status != 0) {
        Workdirs.showTail(scratch.resolve("summary.err"), 5);
        throw new IllegalStateException("the summary exited with status " + status);
      }
      summary = Files.readString(tables);
      Files.writeString(
          file,
          "# vcorfu bench collections"
              + (quick ? " (--quick smoke run)" : "")
              + "\n\n"
              + summary
              + "## Raw output\n\n```\n"
              + Files.readString(raw)
              + "```\n");
    }
    System.out.println();
    System.out.println("run-collections: summary and raw output written to " + file);
    System.out.print(summary);
    return 0;
  }

  private static List<String> java(
      List<String> jvm, String classPath, String main, List<String> args) {
    List<String> cmd = new ArrayList<>(List.of(VcorfuProcesses.javaBinary()));
    cmd.addAll(jvm);
    cmd.addAll(List.of("-cp", classPath, main));
    cmd.addAll(args);
    return cmd;
  }

  private void log(String line) throws IOException {
    System.out.println(line);
    System.out.flush();
    Files.writeString(raw, line + "\n", StandardOpenOption.APPEND);
  }

  private static String env(Map<String, String> env, String name, String otherwise) {
    String v = env.get(name);
    return v == null || v.isEmpty() ? otherwise : v;
  }
}
