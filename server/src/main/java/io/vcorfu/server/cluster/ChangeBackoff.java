package io.vcorfu.server.cluster;

import io.vcorfu.layout.LayoutVersionMismatchException;
import io.vcorfu.protocol.Endpoint;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The back-off of the manager's layout changes, and the log line of each failed one. A failed
 * attempt is retried on a later probe round, from a fresh read of the layout, once a delay has
 * passed that starts at the probe interval and doubles (up to five seconds) while attempts keep
 * failing; a success starts it anew. An attempt that lost its compare-and-set to a concurrent
 * change is logged as such: the loser re-reads and decides again.
 *
 * <p>Confined to the manager's thread.
 */
final class ChangeBackoff {
  // Logged as the manager: every line of the manager's decisions comes under one logger name.
  private static final Logger LOG = LoggerFactory.getLogger(ClusterManager.class);

  private final Endpoint self;
  private final ClusterConfig config;

  private long backoffUntilNanos;
  private long backoffMillis;

  ChangeBackoff(Endpoint self, ClusterConfig config) {
    this.self = self;
    this.config = config;
  }

  /** True when the back-off of the last failed change has passed at {@code now} (nanoseconds). */
  boolean due(long now) {
    return now - backoffUntilNanos >= 0;
  }

  void succeeded() {
    backoffMillis = 0;
    backoffUntilNanos = System.nanoTime();
  }

  /** {@code e} without the future wrappers around it. */
  static Throwable unwrap(Throwable e) {
    Throwable cause = e;
    while ((cause instanceof CompletionException
            || cause instanceof java.util.concurrent.ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  void failed(String what, Exception e) {
    Throwable cause = unwrap(e);
    backoffMillis =
        Math.min(5_000, backoffMillis == 0 ? config.probeInterval().toMillis() : backoffMillis * 2);
    backoffUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMillis);
    if (cause instanceof LayoutVersionMismatchException) {
      LOG.info("manager {}: {} lost to a concurrent change; re-reading the layout", self, what);
    } else {
      LOG.warn(
          "manager {}: {} failed ({}); retrying in {} ms",
          self,
          what,
          cause.toString(),
          backoffMillis);
    }
  }
}
