package io.vcorfu.benchmarks.suite;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * The options of {@code vcorfu bench suite cluster}, and the settings they resolve to ({@link
 * #settings}: the defaults of a full or a {@code --quick} run, checked).
 */
final class ClusterOptions {
  static final Set<String> PARTS = Set.of("failover", "pause", "append", "ycsb", "tls");

  @Option(
      names = "--quick",
      description =
          "Smoke run, about 3 minutes (the full run takes about 10): 1 failover run per role,"
              + " appends --cold 2 --warmup 3 --duration 2, YCSB 1000 records and 12 s run phases.")
  boolean quick;

  @Option(
      names = "--parts",
      defaultValue = "failover,append,ycsb",
      description =
          "Parts to run, comma-separated: failover, pause, append, ycsb, tls (default"
              + " ${DEFAULT-VALUE}; pause and tls on request).")
  String parts;

  @Option(
      names = "--runs",
      description = "Failover runs per role, rounds of the tls part (default 5; --quick 1).")
  Integer runs;

  @Option(
      names = "--cold",
      description =
          "Appends: the cold window, the first S s of load of a fresh client JVM against a fresh"
              + " cluster (default 10; --quick 2).")
  Integer cold;

  @Option(
      names = "--warmup",
      description = "Appends: seconds of load before the warm window (default 30; --quick 3).")
  Integer warmup;

  @Option(
      names = "--duration",
      description = "Appends: the warm window in seconds (default 10; --quick 2).")
  Integer duration;

  @Option(
      names = "--ycsb-seconds",
      description =
          "YCSB: length of each run phase (default 40; cold = its first 10 s, warm = after 20 s;"
              + " --quick 12, 3 s and after 5 s).")
  Integer ycsbSeconds;

  @Option(names = "--records", description = "YCSB: records loaded (default 10000; --quick 1000).")
  Integer records;

  @Option(
      names = "--pause-s",
      defaultValue = "8",
      description = "Pause: how long each paused process stays stopped (default ${DEFAULT-VALUE}).")
  int pauseS;

  @Option(
      names = "--pause-before",
      defaultValue = "12",
      description =
          "Pause: seconds of writes before the pause (default ${DEFAULT-VALUE}, so that the paused"
              + " node has answered for over 10 s).")
  int pauseBefore;

  @Option(
      names = "--node-flags",
      defaultValue = "",
      description =
          "Extra `vcorfu server` flags for every vcorfu node, split on spaces (for instance"
              + " \"--probe-interval-ms 100 --layout-lease-ms 250\"; default none).")
  String nodeFlags;

  @Option(
      names = "--client-writes",
      description =
          "Appends: every vcorfu append takes a token and writes each copy itself (`bench append"
              + " --client-writes`) instead of going whole to the sequencer node.")
  boolean clientWrites;

  @Option(
      names = "--callers",
      defaultValue = "loop",
      description =
          "Appends: how vcorfu's callers run (`bench append --callers`): loop (the default) or"
              + " threads.")
  String callers;

  @Option(
      names = "--out",
      description = "Also write the summary and every raw result line to FILE.")
  Path out;

  @Option(
      names = "--workdir",
      description =
          "Scratch directory, kept afterwards with every node's log (default: a fresh one under"
              + " /tmp, removed at the end).")
  Path workdir;

  @Option(
      names = "--base-port",
      defaultValue = "19400",
      description =
          "ZooKeeper on P, vcorfu nodes on P+1..P+3 (/metrics on P+21..P+23), etcd members on"
              + " P+11/13/15 (client) and P+12/14/16 (peer); default ${DEFAULT-VALUE}.")
  int basePort;

  /** What a run does, every default filled in. */
  record Settings(
      List<String> parts,
      int runs,
      int cold,
      int warmup,
      int duration,
      int ycsbSeconds,
      int records,
      int ycsbCold,
      int ycsbWarmAfter,
      int pauseS,
      int pauseBefore,
      List<String> nodeFlags,
      boolean clientWrites,
      String callers,
      int basePort) {
    boolean has(String part) {
      return parts.contains(part);
    }
  }

  /** The settings, checked: counts positive, parts known, 17 ports below 65536. */
  Settings settings() {
    Settings s =
        new Settings(
            Arrays.asList(parts.split(",")),
            orDefault(runs, 1, 5),
            orDefault(cold, 2, 10),
            orDefault(warmup, 3, 30),
            orDefault(duration, 2, 10),
            orDefault(ycsbSeconds, 12, 40),
            orDefault(records, 1000, 10000),
            quick ? 3 : 10,
            quick ? 5 : 20,
            pauseS,
            pauseBefore,
            nodeFlags.isBlank() ? List.of() : List.of(nodeFlags.trim().split("\\s+")),
            clientWrites,
            callers,
            basePort);
    positive("--runs", s.runs());
    positive("--cold", s.cold());
    positive("--warmup", s.warmup());
    positive("--duration", s.duration());
    positive("--ycsb-seconds", s.ycsbSeconds());
    positive("--records", s.records());
    positive("--base-port", s.basePort());
    positive("--pause-s", s.pauseS());
    positive("--pause-before", s.pauseBefore());
    if (s.basePort() + 16 > 65535) {
      throw new IllegalArgumentException("--base-port must leave room for 17 ports below 65536");
    }
    if (!PARTS.containsAll(s.parts())) {
      throw new IllegalArgumentException(
          "--parts takes failover, pause, append, ycsb and tls, got '" + parts + "'");
    }
    return s;
  }

  private int orDefault(Integer given, int quickValue, int fullValue) {
    return given != null ? given : quick ? quickValue : fullValue;
  }

  static void positive(String option, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(
          option + " must be a positive integer, got '" + value + "'");
    }
  }
}
