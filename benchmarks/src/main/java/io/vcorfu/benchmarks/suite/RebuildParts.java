package io.vcorfu.benchmarks.suite;

import io.vcorfu.benchmarks.FailoverBench;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The measured parts of a rebuild run, each under the foreground load but copy: pause, copy, heal
 * (wiped or kept), grow, member, detect and timeline. Each samples the cluster's status (about
 * every 0.5 s) until full strength is back and prints its result lines ({@link RebuildReport}).
 */
final class RebuildParts {
  private static final int SAMPLES = 7200;

  /** The seconds from a pause that its line counts (the pause, the rejoin, the copy, after). */
  static final int PAUSE_WINDOW_S = 15;

  private final RebuildRun run;
  private final String victim;

  RebuildParts(RebuildRun run) {
    this.run = run;
    this.victim = run.cluster.endpoint(RebuildRun.VICTIM);
  }

  /** The times a copy's samples saw; t0 and the copied counts so far. */
  private static final class Copy {
    final double t0 = RebuildRun.now();
    Double first;
    Double done;
    Double full;
    long copied;
    long bytes;

    void saw(ClusterStatus.Progress p) {
      if (first == null && p.copied() != 0) {
        first = RebuildRun.now();
      }
      if (p.copied() >= copied) {
        copied = p.copied();
        bytes = p.bytes();
      }
      if (p.done() && done == null) {
        done = RebuildRun.now();
      }
    }

    RebuildReport.Times times() {
      return new RebuildReport.Times(
          t0, first == null ? t0 : first, done == null ? full : done, full);
    }
  }

  /**
   * Two rounds of a pause of the victim under the foreground load: kill -STOP for --pause-s
   * seconds, long enough for the manager to remove it, then kill -CONT, so that it rejoins with its
   * JVM warm and copies what it missed; each round sampled until full strength, then the load
   * settles for {@link #PAUSE_WINDOW_S} seconds. One line per round ({@link
   * RebuildReport#pauseLine}). Run before any other part, its first round is the nodes' first
   * layout change under load, the second the same change in the same JVMs.
   */
  void pause() throws IOException, InterruptedException {
    run.startForeground(900, "pause");
    double start = RebuildRun.now();
    Thread.sleep(run.o.fgLeadS * 1000L);
    Processes.Started node = run.cluster.node(RebuildRun.VICTIM);
    double[] at = new double[2];
    double[] toFull = new double[2];
    for (int round = 0; round < 2; round++) {
      SuiteLog.log(
          "pause " + (round + 1) + ": kill -STOP " + victim + " for " + run.o.pauseS + " s");
      double t0 = RebuildRun.now();
      FailoverBench.signal(node.pid(), "STOP");
      try {
        Thread.sleep(run.o.pauseS * 1000L);
      } finally {
        FailoverBench.signal(node.pid(), "CONT");
      }
      Double full = null;
      for (int i = 0; i < SAMPLES && full == null; i++) {
        if (run.status.latest().healthy() && RebuildRun.now() - t0 > run.o.pauseS) {
          full = RebuildRun.now();
        } else {
          Thread.sleep(500);
        }
      }
      if (full == null) {
        throw new IllegalStateException("full strength did not come back within an hour (pause)");
      }
      at[round] = t0 - start;
      toFull[round] = full - t0;
      Thread.sleep((long) (Math.max(0, t0 + 2 * PAUSE_WINDOW_S - RebuildRun.now()) * 1000));
    }
    run.stopForeground();
    RebuildReport.Foreground fg = run.foreground("pause");
    for (int round = 0; round < 2; round++) {
      System.out.println(
          RebuildReport.pauseLine(
              round + 1, fg, at[round], run.o.baselineS, PAUSE_WINDOW_S, toFull[round]));
    }
  }

  /**
   * What a wiped node's copy costs the machine, with no foreground load: the victim (down, and
   * removed) restarts on an empty directory; from its launch to full strength, the machine's busy
   * processor time, the restarted node's (its compiler threads apart) and the two sources'. One
   * line ({@link RebuildReport#copyLine}).
   */
  void copy() throws IOException, InterruptedException {
    Workdirs.deleteTree(run.workdir.resolve("n" + RebuildRun.VICTIM).resolve("data"));
    long[] sources = {run.cluster.node(0).pid(), run.cluster.node(1).pid()};
    double machine0 = ProcTicks.machine();
    double sources0 = ProcTicks.process(sources[0]) + ProcTicks.process(sources[1]);
    Copy copy = new Copy();
    run.cluster.launch(RebuildRun.VICTIM);
    // Polled five times as often as the other parts, as many seconds in all.
    for (int i = 0; i < 5 * SAMPLES && copy.full == null; i++) {
      ClusterStatus s = run.status.latest();
      s.progress(victim).ifPresent(copy::saw);
      if (s.healthy() && RebuildRun.now() - copy.t0 > 1) {
        copy.full = RebuildRun.now();
      } else {
        Thread.sleep(100);
      }
    }
    if (copy.full == null) {
      throw new IllegalStateException("full strength did not come back within an hour (copy)");
    }
    long restarted = run.cluster.node(RebuildRun.VICTIM).pid();
    double machine = ProcTicks.machine() - machine0;
    double source = ProcTicks.process(sources[0]) + ProcTicks.process(sources[1]) - sources0;
    double node = ProcTicks.process(restarted);
    double compilers = ProcTicks.threads(restarted, "C1 Compiler", "C2 Compiler");
    Path serverLog = run.workdir.resolve("n" + RebuildRun.VICTIM).resolve("server.log");
    long preJoin = RebuildReport.preJoinBytes(Files.readAllLines(serverLog));
    System.out.println(
        RebuildReport.copyLine(
            copy.full - copy.t0, preJoin + copy.bytes, machine, node, compilers, source));
  }

  /**
   * Restarts the victim (its directory deleted first for "wiped") under the foreground load and
   * samples until full strength; one result line.
   */
  void heal(String name) throws IOException, InterruptedException {
    if (name.equals("wiped")) {
      Workdirs.deleteTree(run.workdir.resolve("n" + RebuildRun.VICTIM).resolve("data"));
    }
    run.startForeground(600, name);
    Thread.sleep(run.o.fgLeadS * 1000L);
    Copy copy = new Copy();
    run.cluster.launch(RebuildRun.VICTIM);
    Path samples = run.workdir.resolve("samples-" + name + ".tsv");
    Files.writeString(samples, "");
    for (int i = 0; i < SAMPLES && copy.full == null; i++) {
      ClusterStatus s = run.status.latest();
      Optional<ClusterStatus.Progress> p = s.progress(victim);
      if (p.isPresent()) {
        copy.saw(p.get());
        sample(samples, p.get());
      }
      if (s.healthy()) {
        copy.full = RebuildRun.now();
      } else {
        Thread.sleep(500);
      }
    }
    if (copy.full == null) {
      run.stopForeground();
      throw new IllegalStateException(
          "full strength did not come back within an hour (" + name + ")");
    }
    // The seconds after full strength: the joined node's recompilations are not over with it.
    Thread.sleep(RebuildReport.AFTER_FULL_S * 1000L + 500);
    run.stopForeground();
    Path serverLog = run.workdir.resolve("n" + RebuildRun.VICTIM).resolve("server.log");
    List<String> lines = Files.exists(serverLog) ? Files.readAllLines(serverLog) : List.of();
    System.out.println(
        report(name, copy.times(), copy.copied, copy.bytes)
            + RebuildReport.preJoinFields(lines, copy.full - copy.t0, copy.bytes));
  }

  private static void sample(Path file, ClusterStatus.Progress p) throws IOException {
    Files.writeString(
        file,
        String.format(Locale.ROOT, "%.9f\t%d\t%d%n", RebuildRun.now(), p.copied(), p.bytes()),
        StandardOpenOption.APPEND);
  }

  private String report(String name, RebuildReport.Times t, long copied, long bytes)
      throws IOException {
    return RebuildReport.line(
        name, t, copied, bytes, run.baseline, run.baselineP99, run.foreground(name), run.o.fgLeadS);
  }

  /**
   * A fourth node, empty, added with {@code cluster add-node --grow} under the foreground load,
   * sampled until it is a full member and nothing rebuilds; the foreground's rate on three nodes
   * just before and on four just after.
   */
  void grow() throws IOException, InterruptedException {
    String fresh = run.cluster.endpoint(3);
    System.out.println("three nodes: " + run.measuredAppends());
    run.cluster.launch(3);
    run.cluster.awaitReady(3);
    run.startForeground(600, "grow");
    Thread.sleep(run.o.fgLeadS * 1000L);
    Copy copy = new Copy();
    SuiteLog.log("cluster add-node --grow " + fresh);
    run.vcorfu.runCli(
        List.of("cluster", "add-node", "--endpoint", run.endpoints(), "--grow", fresh),
        run.workdir.resolve("add-node.log"),
        "cluster add-node --grow " + fresh);
    for (int i = 0; i < SAMPLES && copy.full == null; i++) {
      ClusterStatus s = run.status.latest();
      s.progress(fresh).ifPresent(copy::saw);
      if (s.member(fresh) && s.healthy()) {
        copy.full = RebuildRun.now();
      } else {
        Thread.sleep(500);
      }
    }
    run.stopForeground();
    if (copy.full == null) {
      throw new IllegalStateException(fresh + " was not a full member within an hour");
    }
    System.out.println(report("grow", copy.times(), copy.copied, copy.bytes));
    System.out.println("four nodes: " + run.measuredAppends());
  }

  /**
   * kill -9 of the victim of the grown cluster, not restarted: sampled until every chain has R
   * replicas again and nothing rebuilds, the copies summed over the nodes that rebuilt.
   */
  void memberHeal() throws IOException, InterruptedException {
    run.startForeground(900, "member");
    Thread.sleep(run.o.fgLeadS * 1000L);
    Copy copy = new Copy();
    long removedMs = run.killAndAwaitRemoval(RebuildRun.VICTIM);
    Map<String, long[]> most = new LinkedHashMap<>();
    for (int i = 0; i < SAMPLES && copy.full == null; i++) {
      ClusterStatus s = run.status.latest();
      for (ClusterStatus.Rebuild r : s.rebuilds()) {
        if (copy.first == null && r.copied() != 0) {
          copy.first = RebuildRun.now();
        }
        long[] m = most.computeIfAbsent(r.node(), k -> new long[2]);
        if (r.copied() >= m[0]) {
          m[0] = r.copied();
          m[1] = r.bytes();
        }
      }
      if (s.strong(victim)) {
        copy.full = RebuildRun.now();
      } else {
        Thread.sleep(500);
      }
    }
    run.stopForeground();
    if (copy.full == null) {
      throw new IllegalStateException(
          "the chains of " + victim + " were not restored within an hour");
    }
    long copied = most.values().stream().mapToLong(m -> m[0]).sum();
    long bytes = most.values().stream().mapToLong(m -> m[1]).sum();
    copy.done = copy.full;
    System.out.println(report("member", copy.times(), copied, bytes));
    System.out.println(
        "member kill_to_removed_ms "
            + removedMs
            + " member_heal_delay_ms "
            + run.o.memberHealDelayMs
            + " rebuilt_by "
            + String.join(" ", most.keySet()));
  }

  /**
   * Failure detection with and without a rebuild running: kill -9 of the victim (kill to removed);
   * it restarts wiped and, once its copy is under way, kill -9 of the second node.
   */
  void detect() throws IOException, InterruptedException {
    run.startForeground(600, "detect");
    Thread.sleep(2000);
    long idle = run.killAndAwaitRemoval(RebuildRun.VICTIM);
    run.restartWiped(RebuildRun.VICTIM);
    Optional<ClusterStatus.Progress> p = Optional.empty();
    for (int j = 0; j < 1200; j++) {
      p = run.status.latest().progress(victim);
      if (p.isPresent() && p.get().copied() > 1000 && !p.get().done()) {
        break;
      }
      Thread.sleep(100);
    }
    if (p.isEmpty() || p.get().done()) {
      throw new IllegalStateException("no copy under way to measure against");
    }
    long busy = run.killAndAwaitRemoval(1);
    run.stopForeground();
    System.out.println(
        "detect kill_to_removed_ms_no_rebuild "
            + idle
            + " kill_to_removed_ms_during_rebuild "
            + busy
            + " rebuild_progress_at_kill "
            + p.get().copied()
            + " "
            + p.get().bytes()
            + " "
            + (p.get().done() ? "True" : "False"));
  }

  /**
   * One foreground run across kill -9 of the victim, its removal, its wiped restart, the rebuild
   * and the promotion; per-second appends and rebuild progress to WORKDIR/timeline.tsv (also on
   * standard output) and, with {@code bench plot}, timeline.png.
   */
  void timeline() throws IOException, InterruptedException {
    SuiteLog.log(
        "timeline: foreground load across kill -9, removal, wiped restart, rebuild, promotion");
    run.startForeground(3600, "timeline");
    double start = RebuildRun.now();
    Thread.sleep(5000);
    List<Map.Entry<Double, String>> events = new ArrayList<>();
    Processes.kill9(run.cluster.node(RebuildRun.VICTIM));
    events.add(event("kill"));
    while (!run.status.latest().removed(victim)) {
      Thread.sleep(100);
    }
    events.add(event("removed"));
    run.restartWiped(RebuildRun.VICTIM);
    events.add(event("restart"));
    List<double[]> samples = new ArrayList<>();
    boolean copying = false;
    boolean copied = false;
    for (int i = 0; i < SAMPLES; i++) {
      ClusterStatus s = run.status.latest();
      Optional<ClusterStatus.Progress> p = s.progress(victim);
      if (p.isPresent()) {
        samples.add(new double[] {RebuildRun.now(), p.get().bytes()});
        if (!copying && p.get().copied() != 0) {
          events.add(event("copying"));
          copying = true;
        }
        if (!copied && p.get().done()) {
          events.add(event("copied"));
          copied = true;
        }
      }
      if (s.healthy()) {
        events.add(event("promoted"));
        break;
      }
      Thread.sleep(500);
    }
    Thread.sleep(5000);
    run.stopForeground();
    Path tsv = run.workdir.resolve("timeline.tsv");
    String text = RebuildReport.timeline(start, run.foreground("timeline"), samples, events);
    Files.writeString(tsv, text);
    System.out.print(text);
    System.out.flush();
    Path png = run.workdir.resolve("timeline.png");
    Processes.Started plot =
        run.processes.startInheriting(
            "bench plot",
            false,
            run.vcorfu.bench(
                List.of("plot", "--input", tsv.toString(), "--output", png.toString())));
    if (Processes.waitFor(plot) == 0) {
      SuiteLog.log("plot: " + png);
    }
    run.processes.stop(plot);
  }

  private static Map.Entry<Double, String> event(String name) {
    return new AbstractMap.SimpleEntry<>(RebuildRun.now(), name);
  }
}
