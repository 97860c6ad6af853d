package io.vcorfu.benchmarks.suite;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options of {@code vcorfu bench suite stream-store}, and the settings they resolve to. */
final class StreamStoreOptions {
  @Option(
      names = {"--headline", "--targets"},
      description =
          "Only the headline comparisons (RESULTS.md's top table), each cold and warm from fresh"
              + " servers; about 10 minutes. --targets is the old name of this option.")
  boolean headline;

  @Option(
      names = "--quick",
      description = "Smoke run: short measurements and small redis/etcd request counts.")
  boolean quick;

  @Option(
      names = "--duration",
      paramLabel = "S",
      description =
          "Seconds of each vcorfu warm measurement (default 15; --headline 10; --quick 2).")
  Integer duration;

  @Option(
      names = "--warmup",
      paramLabel = "S",
      description =
          "--headline: seconds of load before the warm measurement, in the same client JVM (default"
              + " 30; --quick 3).")
  Integer warmup;

  @Option(
      names = "--cold",
      paramLabel = "S",
      description =
          "--headline: length of the cold window, the first S seconds of load of a fresh client JVM"
              + " against a fresh node (default 10; --quick 2).")
  Integer cold;

  @Option(
      names = "--node-flags",
      paramLabel = "FLAGS",
      defaultValue = "",
      description =
          "--headline: more `vcorfu server` flags for each row's node, space-separated (as"
              + " \"--warm-up-s 30\"; default none).")
  String nodeFlags;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "Also write every raw result line and the summary to FILE.")
  Path out;

  @Option(
      names = "--workdir",
      paramLabel = "DIR",
      description = "Scratch directory (default: a fresh one under /tmp, removed at the end).")
  Path workdir;

  @Option(
      names = "--base-port",
      paramLabel = "P",
      defaultValue = "19000",
      description =
          "vcorfu ports P .. P+4 (default ${DEFAULT-VALUE}); redis uses P+10, etcd P+11 and P+12,"
              + " the --headline node's /metrics P+13.")
  int basePort;

  /**
   * What a run does: its windows in seconds and, for the peers (whose tools run a fixed number of
   * requests, not a fixed time), request counts sized from rates measured on the 2-core machine of
   * RESULTS.md so that each run lasts about as long as the vcorfu measurement it is compared with.
   */
  record Settings(
      boolean headline,
      boolean quick,
      int duration,
      int warmup,
      int cold,
      int basePort,
      long incrN,
      long incr16N,
      long xaddN,
      long etcdN1,
      long etcdN8,
      long etcdN50,
      long getN,
      long incrCold,
      long incrWarm,
      long incr16Cold,
      long incr16Warm,
      long etcd8Cold,
      long etcd8Warm,
      long etcd50Cold,
      long etcd50Warm) {
    long etcdTotal(int clients) {
      return clients == 1 ? etcdN1 : clients == 8 ? etcdN8 : etcdN50;
    }
  }

  /** The --node-flags, one argument each. */
  java.util.List<String> nodeFlags() {
    return nodeFlags == null || nodeFlags.isBlank()
        ? java.util.List.of()
        : java.util.List.of(nodeFlags.trim().split("\\s+"));
  }

  Settings settings() {
    int d = duration != null ? duration : quick ? 2 : headline ? 10 : 15;
    int w = warmup != null ? warmup : quick ? 3 : 30;
    int c = cold != null ? cold : quick ? 2 : 10;
    requireUint("--duration", d);
    requireUint("--warmup", w);
    requireUint("--cold", c);
    requireUint("--base-port", basePort);
    if (basePort + 13 > 65535) {
      throw new IllegalArgumentException("--base-port must leave room for 14 ports below 65536");
    }
    if (quick) {
      return new Settings(
          headline, true, d, w, c, basePort, 100_000, 400_000, 20_000, 300, 1000, 2000, 5000,
          100_000, 100_000, 400_000, 400_000, 2000, 2000, 4000, 4000);
    }
    // About --cold and --duration seconds at 70,000 INCR/s, 550,000 pipelined INCR/s, 3,500 etcd
    // puts/s with 8 clients and 9,000 with 50.
    return new Settings(
        headline,
        false,
        d,
        w,
        c,
        basePort,
        1_000_000,
        8_000_000,
        150_000,
        15_000,
        50_000,
        130_000,
        60_000,
        70_000L * c,
        70_000L * d,
        550_000L * c,
        550_000L * d,
        3_500L * c,
        3_500L * d,
        9_000L * c,
        9_000L * d);
  }

  private static void requireUint(String name, int v) {
    if (v < 0) {
      throw new IllegalArgumentException(name + " must be a non-negative integer, not " + v);
    }
  }
}
