package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * vcorfu processes of a run: nodes ({@code VcorfuCli server}), a single-server ZooKeeper ({@code
 * VcorfuCli zookeeper}), one-shot {@code VcorfuCli} commands and bench clients ({@code BenchCli}).
 * Bench clients run on this tool's own class path. The others run as {@code bin/vcorfu} runs them:
 * from the server jar with its class-data-sharing archive, when this tool was started by {@code
 * bin/vcorfu bench} (which names the jar in {@value #SERVER_JAR_PROPERTY}) and the archive is there
 * and not older than the jar; otherwise on this tool's class path too (a test, or {@code java -cp}
 * by hand). A node that maps the archive serves its first seconds of load faster, so a cold figure
 * measured without it would understate what a user sees.
 */
final class VcorfuProcesses {
  static final String CLI = "io.vcorfu.server.cli.VcorfuCli";
  static final String BENCH = "io.vcorfu.benchmarks.BenchCli";

  /** Every JVM a run starts but a node has these flags first, as {@code bin/vcorfu} does. */
  static final List<String> JAVA_OPTS = List.of("-XX:+UseParallelGC");

  /** A node's JVM has these flags first, as {@code bin/vcorfu server} does. */
  static final List<String> NODE_JAVA_OPTS = List.of("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=50");

  /** The system property naming the server jar ({@code bin/vcorfu bench} sets it). */
  static final String SERVER_JAR_PROPERTY = "vcorfu.server.jar";

  // A node started with --warm-up-s prints ready only after its warm-up.
  private static final int READY_SECONDS = 180;

  private final Processes processes;
  private final String classPath;
  // What VcorfuCli runs from: the server jar and its archive's flags, or this tool's class path.
  private final String serverClassPath;
  private final List<String> serverFlags;

  VcorfuProcesses(Processes processes) {
    this.processes = processes;
    this.classPath = System.getProperty("java.class.path");
    String jar = System.getProperty(SERVER_JAR_PROPERTY, "");
    if (!jar.isEmpty() && Files.isRegularFile(Path.of(jar))) {
      this.serverClassPath = jar;
      this.serverFlags = archiveFlags(Path.of(jar));
    } else {
      this.serverClassPath = classPath;
      this.serverFlags = List.of();
    }
  }

  /** This tool's class path (the benchmarks jar): what bench clients run on. */
  String toolClassPath() {
    return classPath;
  }

  /**
   * The flags that map {@code jar}'s class-data-sharing archive (the file beside it named {@code
   * .jsa} for {@code .jar}), as {@code bin/vcorfu} gives them: none when the archive is missing or
   * empty (writing it failed) or older than the jar (a JVM refuses an archive of another jar).
   */
  static List<String> archiveFlags(Path jar) {
    String name = jar.getFileName().toString();
    Path archive = jar.resolveSibling(name.replaceFirst("\\.jar$", "") + ".jsa");
    try {
      if (!Files.isRegularFile(archive)
          || Files.size(archive) == 0
          || Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(archive)) > 0) {
        return List.of();
      }
    } catch (IOException e) {
      return List.of();
    }
    return List.of(
        "-XX:SharedArchiveFile=" + archive,
        "-Xlog:cds=off",
        "-Xlog:cds+dynamic=off",
        "-XX:+UnlockDiagnosticVMOptions",
        "-XX:ArchiveRelocationMode=1");
  }

  /** {@code java JAVA_OPTS JVM_FLAGS -cp CLASSPATH MAIN ARGS}. */
  List<String> java(List<String> jvmFlags, String main, List<String> args) {
    return java(JAVA_OPTS, jvmFlags, main, args);
  }

  private List<String> java(
      List<String> defaults, List<String> jvmFlags, String main, List<String> args) {
    boolean cli = main.equals(CLI);
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBinary());
    cmd.addAll(flags(defaults, jvmFlags));
    if (cli) {
      cmd.addAll(serverFlags);
    }
    cmd.add("-cp");
    cmd.add(cli ? serverClassPath : classPath);
    cmd.add(main);
    cmd.addAll(args);
    return cmd;
  }

  /**
   * {@code defaults} then {@code jvmFlags}, where a collector {@code jvmFlags} names replaces the
   * default collector and its pause goal (the JVM refuses two collectors).
   */
  static List<String> flags(List<String> defaults, List<String> jvmFlags) {
    boolean ownCollector = jvmFlags.stream().anyMatch(f -> f.matches("-XX:\\+Use\\w+GC"));
    List<String> out = new ArrayList<>();
    for (String f : defaults) {
      if (!ownCollector || !(f.matches("-XX:\\+Use\\w+GC") || f.startsWith("-XX:MaxGCPause"))) {
        out.add(f);
      }
    }
    out.addAll(jvmFlags);
    return out;
  }

  /** The java of this JVM, which every JVM of the run is started with. */
  static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** A bench client: {@code java -XX:+UseParallelGC -cp CLASSPATH BenchCli ARGS}. */
  List<String> bench(List<String> args) {
    return java(List.of(), BENCH, args);
  }

  /** A {@code VcorfuCli} command. */
  List<String> cli(List<String> args) {
    return java(List.of(), CLI, args);
  }

  /**
   * Starts {@code VcorfuCli server --host 127.0.0.1 --port PORT SERVER_ARGS} in DIR (log
   * DIR/server.log) without waiting for it; see {@link #awaitReady}.
   */
  Processes.Started launchNode(
      String name, Path dir, int port, List<String> jvmFlags, List<String> serverArgs)
      throws IOException {
    Files.createDirectories(dir);
    Net.requireFree(port);
    List<String> args = new ArrayList<>(List.of("server", "--host", Net.HOST, "--port", "" + port));
    args.addAll(serverArgs);
    return processes.start(
        name, dir.resolve("server.log"), java(NODE_JAVA_OPTS, jvmFlags, CLI, args));
  }

  /** Starts a single-server ZooKeeper on PORT, data in DIR/data, and waits for it. */
  Processes.Started startZookeeper(Path dir, int port, List<String> jvmFlags)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Net.requireFree(port);
    List<String> args =
        List.of(
            "zookeeper",
            "--host",
            Net.HOST,
            "--port",
            "" + port,
            "--data-dir",
            dir.resolve("data").toString());
    Processes.Started zk =
        processes.start("zookeeper", dir.resolve("server.log"), java(jvmFlags, CLI, args));
    awaitReady(zk);
    return zk;
  }

  /** Waits up to 60 s for P's {@code ready} log line; fails if P exits first. */
  static void awaitReady(Processes.Started p) throws InterruptedException, IOException {
    for (int i = 0; i < READY_SECONDS * 10; i++) {
      if (Files.exists(p.log())
          && new String(Files.readAllBytes(p.log()), StandardCharsets.UTF_8).contains(" ready ")) {
        return;
      }
      if (!p.alive()) {
        Workdirs.showTail(p.log(), 20);
        throw new IllegalStateException("vcorfu process " + p.name() + " exited during start-up");
      }
      Thread.sleep(100);
    }
    Workdirs.showTail(p.log(), 20);
    throw new IllegalStateException(
        "vcorfu process " + p.name() + " did not print ready within " + READY_SECONDS + " s");
  }

  /**
   * Runs a one-shot {@code VcorfuCli ARGS} to its end, both outputs to LOG; fails with LOG on
   * standard error and WHAT when it exits non-zero.
   */
  void runCli(List<String> args, Path log, String what) throws IOException, InterruptedException {
    Processes.Started p = processes.start(what, log, cli(args));
    int status = Processes.waitFor(p);
    processes.stop(p);
    if (status != 0) {
      System.err.print(Files.readString(log));
      throw new IllegalStateException(what + " failed");
    }
  }

  /**
   * The first line of a single-node suite's raw output: {@code # TIME nproc N load: L1 L5 L15 node
   * pid P port PORT}.
   */
  static String nodeHeader(Processes.Started node, int port) {
    return "# "
        + Machine.utcNow()
        + " nproc "
        + Machine.cores()
        + " load: "
        + Machine.loadAverage()
        + " node pid "
        + node.pid()
        + " port "
        + port;
  }
}
