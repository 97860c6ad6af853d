package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * One run of {@code vcorfu bench suite rebuild}: a three-node cluster (R = 3, a fourth node's port
 * kept for grow) filled with --fill-mb MiB, a foreground baseline, then the parts ({@link
 * RebuildParts}). Result lines go to standard output as they come, progress to standard error.
 */
final class RebuildRun {
  static final int VICTIM = 2;

  final RebuildOptions o;
  final Processes processes;
  final Path workdir;
  final VcorfuProcesses vcorfu;
  final VcorfuCluster cluster;
  final String zookeeper;
  StatusWatch status;
  double baseline;
  String baselineP99;
  private Processes.Started foreground;

  RebuildRun(RebuildOptions o, Processes processes, Path workdir) {
    this.o = o;
    this.processes = processes;
    this.workdir = workdir;
    this.vcorfu = new VcorfuProcesses(processes);
    int p = o.basePort;
    this.zookeeper = Net.HOST + ":" + p;
    this.cluster =
        new VcorfuCluster(
            vcorfu,
            processes,
            workdir,
            "rebuild",
            List.of(p + 1, p + 2, p + 3, p + 4),
            List.of("-Xmx2g"),
            i ->
                List.of(
                    "--plaintext",
                    "--zookeeper",
                    zookeeper,
                    "--cluster",
                    "rebuild",
                    "--rebuild-rate-mb",
                    "" + o.rebuildRateMb,
                    "--rebuild-max-p99-ms",
                    "" + o.rebuildMaxP99Ms,
                    "--member-heal-delay-ms",
                    "" + o.memberHealDelayMs,
                    "--pre-join-copy-max-s",
                    "" + o.preJoinCopyMaxS));
  }

  /** The three first nodes' endpoints, the ones every client is given. */
  String endpoints() {
    return cluster.endpoints(3);
  }

  void run() throws IOException, InterruptedException {
    SuiteLog.log("workdir " + workdir);
    vcorfu.startZookeeper(workdir.resolve("zk"), o.basePort, List.of());
    cluster.up(3, zookeeper);
    status = StatusWatch.start(processes, vcorfu, endpoints(), workdir);
    if (o.has("degraded")) {
      SuiteLog.log("degraded reads");
      Processes.Started d =
          processes.startInheriting(
              "bench degraded", true, vcorfu.bench(List.of("degraded", "--endpoint", endpoints())));
      int code = Processes.waitFor(d);
      processes.stop(d);
      if (code != 0) {
        throw new IllegalStateException("bench degraded exited with status " + code);
      }
    }
    if (RebuildOptions.PARTS.stream().filter(p -> !p.equals("degraded")).noneMatch(o::has)) {
      return;
    }
    fill();
    SuiteLog.log("foreground baseline: " + o.baselineS + " s after " + o.fgLeadS + " s of warm-up");
    String line = measuredAppends();
    baseline = Markdown.number(RebuildReport.rate(line));
    baselineP99 = Markdown.field(line, "p99");
    if (RebuildReport.rate(line).isEmpty()) {
      throw new IllegalStateException("no baseline figure");
    }
    System.out.println(
        "baseline foreground appends_s "
            + RebuildReport.rate(line)
            + " p99_ms "
            + baselineP99
            + " (threads "
            + o.fgThreads
            + ", "
            + o.fgSize
            + " B values)");
    RebuildParts parts = new RebuildParts(this);
    if (o.has("pause")) {
      parts.pause();
    }
    if (o.has("copy")) {
      killAndAwaitRemoval(VICTIM);
      parts.copy();
    }
    if (o.has("rebuild")) {
      killAndAwaitRemoval(VICTIM);
      parts.heal("wiped");
      killAndAwaitRemoval(VICTIM);
      parts.heal("kept");
    }
    if (o.has("grow")) {
      parts.grow();
    }
    if (o.has("member")) {
      parts.memberHeal();
    }
    if (o.has("detect")) {
      parts.detect();
      return;
    }
    if (o.has("timeline")) {
      parts.timeline();
    }
  }

  private void fill() throws IOException, InterruptedException {
    SuiteLog.log("filling " + o.fillMb + " MiB with " + o.valueSize + "-byte values");
    Path log = workdir.resolve("fill.log");
    Processes.Started fill =
        processes.start(
            "fill",
            log,
            vcorfu.bench(
                List.of(
                    "append",
                    "--endpoint",
                    endpoints(),
                    "--threads",
                    "8",
                    "--conns",
                    "8",
                    "--size",
                    "" + o.valueSize,
                    "--streams",
                    "32",
                    "--prefix",
                    "fill",
                    "--duration",
                    "3600",
                    "--ack-log",
                    "/dev/null")));
    double start = now();
    long mb;
    while ((mb = mebibytes(workdir.resolve("n" + VICTIM).resolve("data"))) < o.fillMb) {
      if (!fill.alive()) {
        System.err.print(Files.readString(log));
        throw new IllegalStateException("the fill stopped");
      }
      Thread.sleep(1000);
    }
    processes.stop(fill);
    SuiteLog.log("filled " + mb + " MiB per node in " + Math.round(now() - start) + " s");
  }

  /** The appends/s line of a measured foreground run (warm-up --fg-lead-s, --baseline-s long). */
  String measuredAppends() throws IOException, InterruptedException {
    Path out = workdir.resolve("measured.out");
    Processes.Started p =
        processes.start(
            "bench append",
            out,
            workdir.resolve("measured.err"),
            vcorfu.bench(
                foregroundArgs("--warmup", "" + o.fgLeadS, "--duration", "" + o.baselineS)));
    int code = Processes.waitFor(p);
    processes.stop(p);
    if (code != 0) {
      Workdirs.showTail(workdir.resolve("measured.err"), 5);
      throw new IllegalStateException("bench append exited with status " + code);
    }
    return Files.readAllLines(out).stream()
        .filter(l -> l.contains("appends/s"))
        .findFirst()
        .orElse("");
  }

  /** Starts the foreground load for SECONDS, its progress lines to WORKDIR/fg-NAME.log. */
  void startForeground(int seconds, String name) throws IOException {
    foreground =
        processes.start(
            "foreground",
            foregroundLog(name),
            vcorfu.bench(foregroundArgs("--duration", "" + seconds, "--ack-log", "/dev/null")));
  }

  /** {@code bench append} of the foreground load (32 streams of prefix fg), then {@code more}. */
  private List<String> foregroundArgs(String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "append",
                "--endpoint",
                endpoints(),
                "--threads",
                "" + o.fgThreads,
                "--conns",
                "" + o.fgThreads,
                "--size",
                "" + o.fgSize,
                "--streams",
                "32",
                "--prefix",
                "fg"));
    args.addAll(List.of(more));
    return args;
  }

  Path foregroundLog(String name) {
    return workdir.resolve("fg-" + name + ".log");
  }

  void stopForeground() {
    if (foreground != null) {
      processes.stop(foreground);
      foreground = null;
    }
  }

  /**
   * kill -9 of node I and a wait until the layout lists it removed; the milliseconds from the kill
   * to the first status sample that shows it removed.
   */
  long killAndAwaitRemoval(int i) throws IOException, InterruptedException {
    String node = cluster.endpoint(i);
    Processes.Started p = cluster.node(i);
    SuiteLog.log("kill -9 " + node + " (pid " + p.pid() + ")");
    double killed = now();
    Processes.kill9(p);
    for (int j = 0; j < 600; j++) {
      if (status.latest().removed(node)) {
        return (long) Math.rint((now() - killed) * 1000);
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException(node + " was not removed within 60 s");
  }

  /** Deletes node I's data directory (it is down) and starts it again, empty. */
  void restartWiped(int i) throws IOException {
    Workdirs.deleteTree(workdir.resolve("n" + i).resolve("data"));
    cluster.launch(i);
  }

  /** Seconds on the run's one clock. */
  static double now() {
    return System.nanoTime() / 1e9;
  }

  /** What DIR's files hold, in MiB rounded up (as {@code du -sm} counts it, near enough). */
  static long mebibytes(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      long bytes = 0;
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        try {
          bytes += Files.size(f);
        } catch (NoSuchFileException gone) {
          // a segment deleted while counting
        }
      }
      return (bytes + (1 << 20) - 1) >> 20;
    } catch (UncheckedIOException e) {
      return 0;
    }
  }

  /** The foreground's report of NAME's log. */
  RebuildReport.Foreground foreground(String name) throws IOException {
    return RebuildReport.Foreground.of(Files.readAllLines(foregroundLog(name)));
  }
}
