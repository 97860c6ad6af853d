package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The full run of the stream-store suite: the single durable node (a warm-up tagged "warmup", the
 * tokens rows, the append matrix of 32 B and 4 KB x 1/32/1000 streams x 1/8 threads with one
 * connection per thread, 1 KB appends at 8 and 50 threads on one connection and one per thread,
 * bulk stream reads); the five-process layout (sequencer, two log replicas, two stream replicas);
 * redis (INCR, XADD/XRANGE); etcd (put at the same sizes and concurrency, get at 1 KB). Every
 * vcorfu append measurement first runs the same load for the warm-up time, uncounted.
 */
final class StreamStoreFullRun {
  private static final int[] SIZES = {32, 4096};
  private static final int[] STREAM_COUNTS = {1, 32, 1000};
  private static final int[] THREAD_COUNTS = {1, 8};
  private static final int[] KB_THREADS = {8, 50};

  private final StreamStoreSuite suite;
  private final StreamStoreOptions.Settings s;
  private final String d;
  private final String warm;
  private final String warmKb;

  StreamStoreFullRun(StreamStoreSuite suite, StreamStoreOptions.Settings s) {
    this.suite = suite;
    this.s = s;
    this.d = "" + s.duration();
    this.warm = "" + (s.duration() < 10 ? 2 : 5);
    // The 1 KB appends run in a client JVM that has finished compiling its hot path: measured on
    // the 2-core machine, a fresh client keeps a C2 compiler thread busy for about 30 s.
    this.warmKb = "" + (s.duration() < 10 ? 2 : s.warmup());
  }

  void run() throws IOException, InterruptedException {
    single();
    five();
    redis();
    etcd();
  }

  /**
   * {@code bench read} of what the appends wrote ({@code what} names the streams), 100 addresses
   * per call, on {@code threads} threads over as many connections, for the measurement's length.
   */
  private List<String> bulkRead(String endpoint, int threads, String... what) {
    List<String> args = new ArrayList<>(List.of("read", "--endpoint", endpoint));
    args.addAll(List.of(what));
    args.addAll(
        List.of(
            "--threads", "" + threads, "--conns", "" + threads, "--batch", "100", "--duration", d));
    return args;
  }

  private List<String> bench(String... args) {
    List<String> l = new ArrayList<>(List.of(args));
    return l;
  }

  private List<String> append(
      String warmup, int size, int streams, int threads, int conns, String prefix) {
    return bench(
        "append",
        "--endpoint",
        suite.endpoint(),
        "--warmup",
        warmup,
        "--size",
        "" + size,
        "--streams",
        "" + streams,
        "--threads",
        "" + threads,
        "--conns",
        "" + conns,
        "--duration",
        d,
        "--prefix",
        prefix);
  }

  private void single() throws IOException, InterruptedException {
    String ep = suite.endpoint();
    Path dir = suite.workdir().resolve("vcorfu/single/data");
    suite.startVcorfu("single", s.basePort(), "2g", List.of("--data-dir", dir.toString()));
    // Warm-up (JIT) of a freshly started server; tagged "warmup", not in the summary.
    suite.measure(
        "warmup",
        bench(
            "tokens",
            "--endpoint",
            ep,
            "--threads",
            "1",
            "--batch",
            "1",
            "--pipeline",
            "32",
            "--duration",
            warm));
    suite.measure(
        "warmup",
        bench(
            "append",
            "--endpoint",
            ep,
            "--size",
            "1024",
            "--streams",
            "32",
            "--threads",
            "8",
            "--duration",
            warm,
            "--prefix",
            "warmup"));
    for (String p : List.of("1", "16")) {
      for (String c : List.of("50", "1")) {
        suite.measure(
            "single",
            bench(
                "tokens",
                "--endpoint",
                ep,
                "--threads",
                "50",
                "--conns",
                c,
                "--batch",
                "1",
                "--pipeline",
                p,
                "--warmup",
                warm,
                "--duration",
                d));
      }
    }
    suite.measure(
        "single",
        bench(
            "tokens",
            "--endpoint",
            ep,
            "--threads",
            "2",
            "--batch",
            "64",
            "--pipeline",
            "32",
            "--warmup",
            warm,
            "--duration",
            d));
    suite.measure(
        "single",
        bench(
            "tokens",
            "--in-process",
            "--threads",
            "1",
            "--batch",
            "64",
            "--pipeline",
            "32",
            "--warmup",
            warm,
            "--duration",
            d));
    for (int size : SIZES) {
      for (int k : STREAM_COUNTS) {
        for (int t : THREAD_COUNTS) {
          suite.measure("single", append(warm, size, k, t, t, "s" + size + "-k" + k + "-t" + t));
        }
      }
    }
    for (int t : KB_THREADS) {
      for (int c : new int[] {1, t}) {
        suite.measure("single", append(warmKb, 1024, 32, t, c, "s1024-k32-t" + t + "-c" + c));
      }
    }
    // Bulk reads of what the appends wrote: one stream of 32 B entries, and 32 streams of 4 KB
    // entries, 100 addresses per call (the XRANGE COUNT below).
    suite.measure("single", bulkRead(ep, 1, "--stream", "s32-k1-t8-0"));
    suite.measure("single", bulkRead(ep, 8, "--stream", "s32-k1-t8-0"));
    suite.measure("single", bulkRead(ep, 8, "--streams", "32", "--prefix", "s4096-k32-t8"));
    suite.stopVcorfu();
  }

  /** The five-process loopback layout's file: the sequencer on P, replicas on P+1 .. P+4. */
  static String layout(int p0) {
    return "{\n"
        + "  \"clusterId\": \"loopback\",\n"
        + "  \"epoch\": 1,\n"
        + "  \"sequencer\": \"127.0.0.1:"
        + p0
        + "\",\n"
        + "  \"segments\": [\n"
        + "    {\n"
        + "      \"start\": 0,\n"
        + "      \"end\": -1,\n"
        + "      \"log\":    [[\"127.0.0.1:"
        + (p0 + 1)
        + "\"], [\"127.0.0.1:"
        + (p0 + 2)
        + "\"]],\n"
        + "      \"stream\": [[\"127.0.0.1:"
        + (p0 + 3)
        + "\"], [\"127.0.0.1:"
        + (p0 + 4)
        + "\"]]\n"
        + "    }\n"
        + "  ]\n"
        + "}\n";
  }

  private void five() throws IOException, InterruptedException {
    int p0 = s.basePort();
    Path layout = suite.workdir().resolve("vcorfu/layout.json");
    Files.createDirectories(layout.getParent());
    Files.writeString(layout, layout(p0));
    for (int i : new int[] {1, 2, 3, 4, 0}) {
      Path data = suite.workdir().resolve("vcorfu/five-" + i + "/data");
      suite.startVcorfu(
          "five-" + i,
          p0 + i,
          "512m",
          List.of("--data-dir", data.toString(), "--layout", layout.toString()));
    }
    suite.measure(
        "warmup",
        bench(
            "append",
            "--endpoint",
            suite.endpoint(),
            "--size",
            "1024",
            "--streams",
            "32",
            "--threads",
            "8",
            "--duration",
            warm,
            "--prefix",
            "warmup"));
    for (int size : SIZES) {
      for (int t : THREAD_COUNTS) {
        suite.measure("five", append(warm, size, 32, t, t, "f" + size + "-t" + t));
      }
    }
    for (int t : KB_THREADS) {
      for (int c : new int[] {1, t}) {
        suite.measure("five", append(warmKb, 1024, 32, t, c, "f1024-t" + t + "-c" + c));
      }
    }
    suite.measure("five", bulkRead(suite.endpoint(), 8, "--streams", "32", "--prefix", "f4096-t8"));
    suite.stopVcorfu();
  }

  private void redis() throws IOException, InterruptedException {
    PeerBench peers = suite.peers;
    suite.redis.start();
    suite.measurePeer(
        "redis p1",
        "bench-incr --clients 50 --pipeline 1 --requests " + s.incrN(),
        () -> List.of(peers.incr(50, 1, s.incrN())));
    suite.measurePeer(
        "redis p16",
        "bench-incr --clients 50 --pipeline 16 --requests " + s.incr16N(),
        () -> List.of(peers.incr(50, 16, s.incr16N())));
    List<int[]> runs = new ArrayList<>();
    for (int size : SIZES) {
      for (int t : THREAD_COUNTS) {
        runs.add(new int[] {size, t});
      }
    }
    for (int t : KB_THREADS) {
      runs.add(new int[] {1024, t});
    }
    for (int[] r : runs) {
      suite.measurePeer(
          "redis size " + r[0] + " clients " + r[1],
          "bench-stream --size "
              + r[0]
              + " --clients "
              + r[1]
              + " --requests "
              + s.xaddN()
              + " --batch 100",
          () -> peers.stream(r[0], r[1], s.xaddN(), 100));
    }
    suite.redis.stop();
  }

  private void etcd() throws IOException, InterruptedException {
    PeerBench peers = suite.peers;
    suite.etcd.start();
    List<int[]> runs = new ArrayList<>();
    for (int size : SIZES) {
      for (int t : THREAD_COUNTS) {
        runs.add(new int[] {size, t, t});
      }
    }
    for (int t : KB_THREADS) {
      runs.add(new int[] {1024, t, 1});
      runs.add(new int[] {1024, t, t});
    }
    for (int[] r : runs) {
      long total = s.etcdTotal(r[1]);
      suite.measurePeer(
          "etcd size " + r[0] + " clients " + r[1],
          "bench-put --size "
              + r[0]
              + " --clients "
              + r[1]
              + " --conns "
              + r[2]
              + " --total "
              + total,
          () -> List.of(peers.put(r[0], r[1], r[2], total)));
    }
    suite.measurePeer(
        "etcd size 1024 clients 8",
        "bench-get --size 1024 --clients 8 --conns 8 --total " + s.getN(),
        () -> List.of(peers.get(1024, 8, 8, s.getN())));
    suite.etcd.stop();
  }
}
