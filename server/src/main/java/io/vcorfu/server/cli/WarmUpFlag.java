package io.vcorfu.server.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.WarmUp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * {@code --warm-up-s N}: the node's warm-up before it serves ({@link WarmUp}), with the throwaway
 * nodes' log lines below warnings kept out of the node's log.
 */
final class WarmUpFlag {
  @Option(
      names = "--warm-up-s",
      paramLabel = "N",
      description =
          "Before serving, run a load through a throwaway cluster in this process (temporary"
              + " directory, free ports of 127.0.0.1; three replicating nodes for a cluster or"
              + " layout-file node, one otherwise) until the JIT compilers go quiet, for at most N"
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
    say.accept(
        "vcorfu node "
            + config.listen()
            + " warming up (at most "
            + seconds
            + " s, "
            + (replicated ? "three replicating nodes" : "one node")
            + " in this process)");
    WarmUp.Report r;
    // The throwaway nodes' lines (serving, sequencer ready, ...) would read as the node's own.
    ch.qos.logback.classic.Logger ours =
        org.slf4j.LoggerFactory.getILoggerFactory() instanceof LoggerContext context
            ? context.getLogger("io.vcorfu")
            : null;
    Level was = ours == null ? null : ours.getLevel();
    if (ours != null) {
      ours.setLevel(Level.WARN);
    }
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
      if (ours != null) {
        ours.setLevel(was);
      }
    }
    say.accept(
        String.format(
            "vcorfu node %s warmed up: %d appends in %.1f s (%s)",
            config.listen(),
            r.appends(),
            r.took().toMillis() / 1000.0,
            r.quiet() ? "compilers quiet" : "limit reached"));
  }
}
