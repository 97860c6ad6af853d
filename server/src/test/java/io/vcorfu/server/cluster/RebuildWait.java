package io.vcorfu.server.cluster;

import io.vcorfu.protocol.Endpoint;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/** Waits on what a rebuilding node reports of its copy, for tests that act mid-copy. */
final class RebuildWait {
  private RebuildWait() {}

  /** Waits until {@code node} reports a rebuild under way that has copied something. */
  static void awaitCopying(NodeCalls calls, Endpoint node) {
    Awaitility.await(node + " copying")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> calls.ping(node).get(5, TimeUnit.SECONDS).getRebuild(),
            r -> r.getEntriesCopied() > 0 && !r.getDone());
  }
}
