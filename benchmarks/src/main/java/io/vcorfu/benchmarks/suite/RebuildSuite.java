package io.vcorfu.benchmarks.suite;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code vcorfu bench suite rebuild}: healing, measured on a three-node vcorfu cluster (R = 3) on
 * 127.0.0.1: how fast a replica is rebuilt from its chain peers, what foreground appends keep
 * meanwhile, and how long full replication takes to come back after kill -9 and restart of a node
 * holding --fill-mb MiB ({@link RebuildRun}, {@link RebuildParts}).
 */
@Command(
    name = "rebuild",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Healing on three vcorfu nodes (R = 3): fill --fill-mb MiB, measure a foreground baseline,"
          + " then the parts, each under the foreground load:",
      "  pause     (first) kill -STOP of the third node for --pause-s s, removed, then kill -CONT:"
          + " it rejoins warm; twice in the same JVMs: foreground appends/s over 15 s from each"
          + " pause against the --baseline-s s before it, and pause to full strength.",
      "  rebuild   kill -9 of the third node, removed; restarted wiped (a rebuild copies"
          + " everything), then killed and restarted on its data (it copies what it missed):"
          + " restart to full strength, copy rate, foreground appends/s as a fraction of the"
          + " baseline, from the restart to full strength and over the 10 s after it.",
      "  timeline  one foreground run across kill, removal, wiped restart, rebuild, promotion:"
          + " WORKDIR/timeline.tsv and timeline.png.",
      "  grow      a fourth node added with `cluster add-node --grow`; add-node to promotion.",
      "  member    (after grow) kill -9 of the third node, not restarted: kill to every chain at"
          + " R again.",
      "  detect    (last) kill to removed, without and during a rebuild.",
      "  degraded  `bench degraded` on the fresh cluster, before any fill.",
      "Every process the run starts is stopped by its pid, also on failure or interrupt."
    })
public final class RebuildSuite implements Callable<Integer> {
  @Mixin RebuildOptions options = new RebuildOptions();

  @Override
  public Integer call() throws Exception {
    options.check();
    try (Processes processes = new Processes()) {
      Path workdir = Workdirs.open(options.workdir, "rebuild", processes);
      new RebuildRun(options, processes, workdir).run();
    }
    return 0;
  }
}
