package io.vcorfu.server.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.WarmUp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * {@code --warm-up-s N}: the node's warm-up before it serves ({@link WarmUp}), with the throwaway
 * cluster's log lines but its errors kept out of the node's log.
 */
final class WarmUpFlag {
  @Option(
      names = "--warm-up-s",
      paramLabel = "N",
      description =
          "Before serving, run a load through a throwaway cluster in this process (temporary"
              + " directory, free ports of 127.0.0.1; three replicating nodes for a cluster or"
              + " layout-file node, with a ZooKeeper of their own for a cluster node; one node"
              + " otherwise) until the JIT compilers go quiet, for at most N"
              + " seconds, so the first clients meet compiled code; 0 to "
              + WarmUp.MAX_SECONDS
              + ", default 0 (no warm-up). The node is unreachable meanwhile.")
  int seconds;

  String rangeError() {
    return "--warm-up-s must be 0 to " + WarmUp.MAX_SECONDS + " seconds, not " + seconds;
  }

  /**
   * Runs the warm-up when asked for, reporting it through {@code say}. A warm-up that fails is
   * reported and the node starts without it: it only makes the first requests faster.
   */
  void run(NodeConfig config, boolean replicated, Consumer<String> say) {
    run(config, replicated, say, Path.of(System.getProperty("java.io.tmpdir")));
  }

  /**
   * As {@link #run(NodeConfig, boolean, Consumer)}, the throwaway cluster's files in {@code tmp}.
   */
  void run(NodeConfig config, boolean replicated, Consumer<String> say, Path tmp) {
    if (seconds == 0) {
      return;
    }
    // A node refused its data directory is told so now, not after its warm-up.
    WarmUp.refuseHeldDataDirectory(config);
    say.accept(
        "vcorfu node "
            + config.listen()
            + " warming up (at most "
            + seconds
            + " s, "
            + (!replicated
                ? "one node"
                : config.cluster() != null
                    ? "three replicating nodes and a ZooKeeper"
                    : "three replicating nodes")
            + " in this process)");
    WarmUp.Report r;
    // The throwaway nodes' lines (serving, sequencer ready, a node of theirs seen down as they
    // close, ...) would read as the node's own: only their errors, and the warm-up's own warnings.
    Map<String, Level> was = quiet();
    try {
      r = WarmUp.run(config, replicated, Duration.ofSeconds(seconds), tmp);
    } catch (IllegalStateException e) {
      say.accept(
          "vcorfu node "
              + config.listen()
              + " starts without its warm-up: "
              + e.getMessage()
              + " (its first requests will be slower)");
      return;
    } finally {
      restore(was);
    }
    say.accept(
        String.format(
            "vcorfu node %s warmed up: %d appends and %d tokens in %.1f s (%s)",
            config.listen(),
            r.appends(),
            r.tokens(),
            r.took().toMillis() / 1000.0,
            r.quiet() ? "compilers quiet" : "limit reached"));
  }

  /** The loggers the warm-up quiets, and the level each logs at meanwhile. */
  private static final Map<String, Level> DURING =
      Map.of(
          "io.vcorfu",
          Level.ERROR,
          WarmUp.class.getName(),
          Level.WARN,
          "org.apache.zookeeper",
          Level.ERROR,
          "org.apache.curator",
          Level.ERROR);

  /** Sets {@link #DURING}'s levels; returns the levels they had (null: inherited). */
  private static Map<String, Level> quiet() {
    Map<String, Level> was = new HashMap<>();
    if (org.slf4j.LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      DURING.forEach(
          (name, level) -> {
            ch.qos.logback.classic.Logger logger = context.getLogger(name);
            was.put(name, logger.getLevel());
            logger.setLevel(level);
          });
    }
    return was;
  }

  private static void restore(Map<String, Level> was) {
    if (org.slf4j.LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      was.forEach((name, level) -> context.getLogger(name).setLevel(level));
    }
  }
}
