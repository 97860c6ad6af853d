package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench suite objects}: every {@code bench objects} mode side by side against one
 * in-memory node that it starts (and ends, by its pid), then a summary table ({@link
 * ObjectsTable}). As the script it replaces, it reads DURATION (seconds per run, default 20), PORT
 * (the node's, default 9750), OUT (the raw output's file, default
 * benchmarks/target/objects-run.txt) and VCORFU_JAVA_OPTS (added to every JVM's flags) from the
 * environment.
 */
@Command(
    name = "objects",
    mixinStandardHelpOptions = true,
    description = {
      "Every `bench objects` mode side by side against one in-memory node, then a summary table."
          + " Environment: DURATION seconds per run (default 20), PORT of the node (default 9750),"
          + " OUT for the raw output (default benchmarks/target/objects-run.txt)."
    })
public final class ObjectsSuite implements Callable<Integer> {
  /** The modes and their arguments, in the order of the table. */
  static final List<List<String>> RUNS =
      List.of(
          List.of("accessor-local", "--threads", "1"),
          List.of("accessor-remote", "--threads", "1"),
          List.of("accessor-behind", "--behind", "10"),
          List.of("accessor-behind", "--behind", "100"),
          List.of("mutator", "--threads", "1"),
          List.of("mutator", "--threads", "4"),
          List.of("tx", "--threads", "2", "--objects", "16"),
          List.of("tx", "--threads", "4", "--objects", "16"),
          List.of("tx", "--threads", "8", "--objects", "16"),
          List.of("tx", "--threads", "16", "--objects", "16"),
          List.of("ro-tx-local", "--threads", "1"),
          List.of("ro-tx-local", "--threads", "4"),
          List.of("ro-tx-remote", "--threads", "1"),
          List.of("ro-tx-remote", "--threads", "4"),
          List.of("ro-tx-local", "--threads", "4", "--random-snapshot"),
          List.of("ro-tx-remote", "--threads", "4", "--random-snapshot"));

  @Option(names = "--quick", description = "3 s per run (a smoke test).")
  boolean quick;

  private Path out;

  @Override
  public Integer call() throws Exception {
    int duration = quick ? 3 : Integer.parseInt(env("DURATION", "20"));
    int port = Integer.parseInt(env("PORT", "9750"));
    out =
        Path.of(
            env("OUT", SuiteFiles.benchmarksDir().resolve("target/objects-run.txt").toString()));
    List<String> jvm =
        System.getenv("VCORFU_JAVA_OPTS") == null || System.getenv("VCORFU_JAVA_OPTS").isBlank()
            ? List.of()
            : List.of(System.getenv("VCORFU_JAVA_OPTS").trim().split("\\s+"));
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(out, "");
    try (Processes processes = new Processes()) {
      Path dir = Workdirs.open(null, "objects", processes);
      VcorfuProcesses vcorfu = new VcorfuProcesses(processes);
      // The node hosts remote views of the benchmark's own classes (BenchCounter, BenchAccount).
      Processes.Started node =
          vcorfu.launchNode(
              "vcorfu", dir, port, jvm, List.of("--memory", "--classpath", vcorfu.toolClassPath()));
      VcorfuProcesses.awaitReady(node);
      log(VcorfuProcesses.nodeHeader(node, port) + " duration " + duration + "s");
      for (List<String> run : RUNS) {
        List<String> args = new ArrayList<>(List.of("objects"));
        args.addAll(run);
        args.addAll(List.of("--endpoint", Net.HOST + ":" + port, "--duration", "" + duration));
        log("$ vcorfu bench " + String.join(" ", args));
        Path raw = dir.resolve("bench.out");
        Processes.Started bench =
            processes.start("bench objects", raw, vcorfu.java(jvm, VcorfuProcesses.BENCH, args));
        Processes.waitFor(bench);
        processes.stop(bench);
        // A mode that could not run says so (and exits 1); the table lists it and the run goes on.
        for (String line : Files.readAllLines(raw)) {
          if (line.matches("^(objects|check|stopped|vcorfu:).*")) {
            log(line);
          }
        }
      }
      log("# " + Machine.utcNow() + " load at end: " + Machine.loadAverage());
    }
    System.out.println();
    System.out.print(ObjectsTable.of(Files.readAllLines(out)));
    return 0;
  }

  private void log(String line) throws IOException {
    System.out.println(line);
    System.out.flush();
    Files.writeString(out, line + "\n", StandardOpenOption.APPEND);
  }

  private static String env(String name, String otherwise) {
    String v = System.getenv(name);
    return v == null || v.isEmpty() ? otherwise : v;
  }
}
