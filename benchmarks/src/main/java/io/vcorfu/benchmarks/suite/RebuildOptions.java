package io.vcorfu.benchmarks.suite;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of {@code vcorfu bench suite rebuild}, checked by {@link #check}. */
final class RebuildOptions {
  static final List<String> PARTS =
      List.of("pause", "copy", "rebuild", "timeline", "grow", "member", "detect", "degraded");

  @Option(
      names = "--parts",
      defaultValue = "rebuild",
      description =
          "Parts, comma-separated (default ${DEFAULT-VALUE}): pause (runs first when named),"
              + " copy (next: what a wiped node's copy costs the machine, no foreground load),"
              + " rebuild, timeline, grow, member (after grow), detect (last: the cluster is not"
              + " usable after it), degraded.")
  String parts;

  @Option(
      names = "--fill-mb",
      defaultValue = "1024",
      description =
          "Data written before the failure, in MiB (default ${DEFAULT-VALUE}): durable appends of"
              + " --value-size bytes to 32 streams from 8 threads on 8 connections.")
  int fillMb;

  @Option(
      names = "--value-size",
      defaultValue = "65536",
      description = "The fill's value size in bytes (default ${DEFAULT-VALUE}).")
  int valueSize;

  @Option(
      names = "--rebuild-rate-mb",
      defaultValue = "128",
      description = "Every node's --rebuild-rate-mb (default ${DEFAULT-VALUE}, the server's).")
  int rebuildRateMb;

  @Option(
      names = "--rebuild-max-p99-ms",
      defaultValue = "20",
      description =
          "Every node's --rebuild-max-p99-ms (default ${DEFAULT-VALUE}, the server's; 0: the copy"
              + " runs at --rebuild-rate-mb whatever the foreground's latency).")
  int rebuildMaxP99Ms;

  @Option(
      names = "--member-heal-delay-ms",
      defaultValue = "30000",
      description = "Every node's --member-heal-delay-ms (default ${DEFAULT-VALUE}, the server's).")
  int memberHealDelayMs;

  @Option(
      names = "--pre-join-copy-max-s",
      defaultValue = "60",
      description =
          "Every node's --pre-join-copy-max-s (default ${DEFAULT-VALUE}, the server's; 0: a"
              + " restarted node joins at once and copies everything after the join).")
  int preJoinCopyMaxS;

  @Option(
      names = "--fg-threads",
      defaultValue = "8",
      description =
          "The foreground load: `bench append --threads T --conns T --size --fg-size --streams 32`"
              + " (default ${DEFAULT-VALUE} threads).")
  int fgThreads;

  @Option(
      names = "--fg-size",
      defaultValue = "1024",
      description = "The foreground's value size in bytes (default ${DEFAULT-VALUE}).")
  int fgSize;

  @Option(
      names = "--baseline-s",
      defaultValue = "10",
      description =
          "Seconds of foreground load measured before the failure (default ${DEFAULT-VALUE}).")
  int baselineS;

  @Option(
      names = "--fg-lead-s",
      defaultValue = "20",
      description =
          "Seconds the foreground client runs before anything is measured: before the baseline,"
              + " and before each restart, add-node or kill (default ${DEFAULT-VALUE}).")
  int fgLeadS;

  @Option(
      names = "--pause-s",
      defaultValue = "5",
      description =
          "Part pause: how long the node is stopped (kill -STOP, then kill -CONT) in each of the"
              + " two rounds (default ${DEFAULT-VALUE}).")
  int pauseS;

  @Option(
      names = "--workdir",
      description =
          "Scratch directory, kept afterwards (default: a fresh one under /tmp, removed at the"
              + " end).")
  Path workdir;

  @Option(
      names = "--base-port",
      defaultValue = "19600",
      description = "ZooKeeper on P, nodes on P+1..P+4 (default ${DEFAULT-VALUE}).")
  int basePort;

  List<String> partList() {
    return Arrays.asList(parts.split(","));
  }

  boolean has(String part) {
    return partList().contains(part);
  }

  /** Fails unless every count is positive (--rebuild-max-p99-ms: whole) and every part known. */
  RebuildOptions check() {
    if (rebuildMaxP99Ms < 0) {
      throw new IllegalArgumentException(
          "--rebuild-max-p99-ms must be a whole number, got '" + rebuildMaxP99Ms + "'");
    }
    if (preJoinCopyMaxS < 0) {
      throw new IllegalArgumentException(
          "--pre-join-copy-max-s must be 0 or more seconds, got '" + preJoinCopyMaxS + "'");
    }
    ClusterOptions.positive("--fill-mb", fillMb);
    ClusterOptions.positive("--value-size", valueSize);
    ClusterOptions.positive("--rebuild-rate-mb", rebuildRateMb);
    ClusterOptions.positive("--member-heal-delay-ms", memberHealDelayMs);
    ClusterOptions.positive("--fg-threads", fgThreads);
    ClusterOptions.positive("--fg-size", fgSize);
    ClusterOptions.positive("--baseline-s", baselineS);
    ClusterOptions.positive("--fg-lead-s", fgLeadS);
    ClusterOptions.positive("--pause-s", pauseS);
    ClusterOptions.positive("--base-port", basePort);
    if (basePort + 4 > 65535) {
      throw new IllegalArgumentException("--base-port must leave room for 5 ports below 65536");
    }
    for (String p : partList()) {
      if (!PARTS.contains(p)) {
        throw new IllegalArgumentException(
            "--parts takes " + String.join(", ", PARTS) + ", got '" + parts + "'");
      }
    }
    if (has("member") && !has("grow")) {
      throw new IllegalArgumentException("--parts member needs grow first (four nodes)");
    }
    return this;
  }
}
