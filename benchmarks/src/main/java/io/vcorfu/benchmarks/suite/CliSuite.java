package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code vcorfu bench suite cli}: one-shot command-line calls side by side, each a fresh process as
 * a person or a script runs it: {@code bin/vcorfu} against one durable node (its data commands run
 * by the node, and again in the calling process with {@code VCORFU_RUN_LOCAL=1}), {@code etcdctl}
 * against one etcd member and {@code redis-cli} against one Redis, all on 127.0.0.1 and started by
 * the run. The calls of one round run one after another, command after command, for {@code --calls}
 * rounds, so every command sees the same machine. Per command: the first call against the fresh
 * server (cold), the range and median of the others (warm), the caller's processor time (the
 * process and its threads, as its shell counts it) and the server's per call (its process's
 * processor time across the call, at the kernel's 10 ms resolution, averaged).
 */
@Command(
    name = "cli",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "One-shot command-line calls side by side, each a fresh process: bin/vcorfu against one"
          + " durable node (data commands run by the node, and in the caller with"
          + " VCORFU_RUN_LOCAL=1), etcdctl against one etcd member, redis-cli against one Redis;"
          + " interleaved for --calls rounds. Prints a markdown table: first call, range and median"
          + " of the rest, caller and server processor time per call."
    })
public final class CliSuite implements Callable<Integer> {
  @Option(names = "--calls", defaultValue = "9", description = "Rounds (default 9, at least 3).")
  int calls;

  @Option(
      names = "--vcorfu",
      defaultValue = "bin/vcorfu",
      description = "The vcorfu launcher to call (default bin/vcorfu of the working directory).")
  Path vcorfu;

  @Option(names = "--port", defaultValue = "9571", description = "The vcorfu node's port.")
  int port;

  @Option(names = "--etcd-port", defaultValue = "2479", description = "etcd's client port.")
  int etcdPort;

  @Option(names = "--redis-port", defaultValue = "6479", description = "Redis's port.")
  int redisPort;

  @Option(names = "--workdir", description = "Keep the servers' data here (default: a fresh one).")
  Path workdir;

  @Option(names = "--out", description = "Also write the table to this file.")
  Path out;

  @Spec CommandSpec spec;

  /** One command measured: its label, its command line, extra environment, and its server. */
  private record Call(String label, List<String> command, Map<String, String> env, long server) {}

  @Override
  public Integer call() throws Exception {
    if (calls < 3) {
      throw new ParameterException(spec.commandLine(), "--calls must be at least 3, not " + calls);
    }
    if (!Files.isExecutable(vcorfu)) {
      throw new ParameterException(
          spec.commandLine(),
          "--vcorfu " + vcorfu + " is not an executable file: run from a checkout's root");
    }
    try (Processes processes = new Processes()) {
      Path dir = Workdirs.open(workdir, "cli", processes);
      String v = vcorfu.toAbsolutePath().toString();
      String endpoint = Net.HOST + ":" + port;
      Net.requireFree(port);
      Processes.Started node =
          processes.start(
              "vcorfu node",
              dir.resolve("node.log"),
              List.of(
                  v, "server", "--port", "" + port, "--data-dir", dir.resolve("node").toString()));
      VcorfuProcesses.awaitReady(node);
      Net.requireFree(etcdPort);
      String etcdUrl = "http://" + Net.HOST + ":" + etcdPort;
      Processes.Started etcd =
          processes.start(
              "etcd",
              dir.resolve("etcd.log"),
              List.of(
                  "etcd",
                  "--data-dir",
                  dir.resolve("etcd").toString(),
                  "--listen-client-urls",
                  etcdUrl,
                  "--advertise-client-urls",
                  etcdUrl,
                  "--listen-peer-urls",
                  "http://" + Net.HOST + ":" + (etcdPort + 1)));
      Net.awaitPort(etcd, etcdPort, 30);
      RedisServer redis = new RedisServer(processes, dir, redisPort);
      redis.start();
      long n = node.pid();
      long e = etcd.pid();
      long r = redis.pid();
      Map<String, String> local = Map.of("VCORFU_RUN_LOCAL", "1");
      List<String> etcdctl = List.of("etcdctl", "--endpoints=" + Net.HOST + ":" + etcdPort);
      List<String> redisCli = List.of("redis-cli", "-h", Net.HOST, "-p", "" + redisPort);
      List<Call> measured =
          List.of(
              new Call("vcorfu --version", List.of(v, "--version"), Map.of(), n),
              vcorfuCall(v, endpoint, Map.of(), n, "map", "put", "--map", "m", "k", "v"),
              vcorfuCall(v, endpoint, Map.of(), n, "map", "get", "--map", "m", "k"),
              vcorfuCall(v, endpoint, Map.of(), n, "log", "append", "--stream", "s", "x"),
              vcorfuCall(v, endpoint, Map.of(), n, "log", "tail"),
              vcorfuCall(v, endpoint, Map.of(), n, "map", "diff", "--map", "m", "--from", "-1"),
              vcorfuCall(v, endpoint, Map.of(), n, "log", "head", "--stream", "s"),
              vcorfuCall(v, endpoint, Map.of(), n, "cluster", "status"),
              new Call("vcorfu ping", List.of(v, "ping", "--endpoint", endpoint), Map.of(), n),
              vcorfuCall(v, endpoint, local, n, "map", "put", "--map", "m", "k", "v"),
              vcorfuCall(v, endpoint, local, n, "map", "get", "--map", "m", "k"),
              vcorfuCall(v, endpoint, local, n, "cluster", "status"),
              new Call(
                  "VCORFU_RUN_LOCAL=1 vcorfu ping",
                  List.of(v, "ping", "--endpoint", endpoint),
                  local,
                  n),
              peerCall("etcdctl put k v", etcdctl, e, "put", "k", "v"),
              peerCall("etcdctl get k", etcdctl, e, "get", "k"),
              peerCall("etcdctl endpoint status", etcdctl, e, "endpoint", "status"),
              peerCall("etcdctl endpoint health", etcdctl, e, "endpoint", "health"),
              peerCall("redis-cli set k v", redisCli, r, "set", "k", "v"),
              peerCall("redis-cli get k", redisCli, r, "get", "k"),
              peerCall("redis-cli ping", redisCli, r, "ping"));
      String start = Machine.utcNow() + ", load average " + Machine.loadAverage();
      List<List<double[]>> samples = new ArrayList<>();
      measured.forEach(c -> samples.add(new ArrayList<>()));
      for (int round = 0; round < calls; round++) {
        for (int i = 0; i < measured.size(); i++) {
          samples.get(i).add(measure(measured.get(i)));
        }
        SuiteLog.log("round " + (round + 1) + " of " + calls + " done");
      }
      String table =
          table(measured, samples)
              + "\n"
              + calls
              + " rounds from "
              + start
              + " to "
              + Machine.utcNow()
              + ", load average "
              + Machine.loadAverage()
              + ".\n";
      System.out.print(table);
      if (out != null) {
        Files.writeString(out, table);
        SuiteLog.log("wrote " + out);
      }
    }
    return 0;
  }

  private static Call vcorfuCall(
      String v, String endpoint, Map<String, String> env, long server, String... args) {
    List<String> command = new ArrayList<>(List.of(v, args[0], args[1], "--endpoint", endpoint));
    command.addAll(List.of(args).subList(2, args.length));
    String label =
        (env.isEmpty() ? "" : "VCORFU_RUN_LOCAL=1 ") + "vcorfu " + String.join(" ", args);
    return new Call(label, command, env, server);
  }

  private static Call peerCall(String label, List<String> base, long server, String... args) {
    List<String> command = new ArrayList<>(base);
    command.addAll(List.of(args));
    return new Call(label, command, Map.of(), server);
  }

  /**
   * Runs one call under a shell that reports its children's processor time: {wall ms, caller
   * processor ms, server processor ms}. A call that fails fails the run.
   */
  private static double[] measure(Call c) throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of("bash", "-c", "\"$@\" >/dev/null 2>&1; s=$?; times; exit $s", "bash"));
    command.addAll(c.command());
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
    b.environment().putAll(c.env());
    long serverBefore = cpuMillis(c.server());
    long started = System.nanoTime();
    Process p = b.start();
    byte[] output = p.getInputStream().readAllBytes();
    int status = p.waitFor();
    double wall = (System.nanoTime() - started) / 1e6;
    long serverAfter = cpuMillis(c.server());
    if (status != 0) {
      throw new IllegalStateException("`" + c.label() + "` exited " + status);
    }
    // `times`: the shell's user and system time, then its children's.
    String[] lines = new String(output, StandardCharsets.UTF_8).strip().split("\n");
    String[] children = lines[lines.length - 1].strip().split(" ");
    return new double[] {
      wall, seconds(children[0]) * 1e3 + seconds(children[1]) * 1e3, serverAfter - serverBefore
    };
  }

  /** {@code 0m0.312s} in seconds. */
  static double seconds(String shellTime) {
    int m = shellTime.indexOf('m');
    return Integer.parseInt(shellTime.substring(0, m)) * 60
        + Double.parseDouble(shellTime.substring(m + 1, shellTime.length() - 1));
  }

  /** User and system time of process {@code pid} so far, in ms (10 ms resolution). */
  static long cpuMillis(long pid) throws IOException {
    return Math.round(ProcTicks.process(pid) * 1000);
  }

  static String table(List<Call> measured, List<List<double[]>> samples) {
    StringBuilder t = new StringBuilder();
    t.append("| command | first call | later calls: range | median | caller CPU, median |")
        .append(" server CPU per call |\n|---|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < measured.size(); i++) {
      List<double[]> s = samples.get(i);
      double[] wall = s.subList(1, s.size()).stream().mapToDouble(x -> x[0]).sorted().toArray();
      double[] caller = s.subList(1, s.size()).stream().mapToDouble(x -> x[1]).sorted().toArray();
      double server = s.subList(1, s.size()).stream().mapToDouble(x -> x[2]).average().orElse(0);
      t.append(
          String.format(
              "| `%s` | %.0f ms | %.0f-%.0f ms | %.0f ms | %.0f ms | %.1f ms |%n",
              measured.get(i).label(),
              s.get(0)[0],
              wall[0],
              wall[wall.length - 1],
              wall[wall.length / 2],
              caller[caller.length / 2],
              server));
    }
    return t.toString();
  }
}
