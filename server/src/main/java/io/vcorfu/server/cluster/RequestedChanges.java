package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutVersionMismatchException;
import io.vcorfu.layout.Versioned;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.TransportException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Runs the layout changes clients ask for on the manager's thread, one change at a time with the
 * failure handling, each from a fresh read of the layout, and retries the attempts that lost to a
 * concurrent change or to a slow node. What each change is, {@link NodeChangeRequests} decides.
 */
final class RequestedChanges {
  /** A change asked for by a client, computed and committed by {@code attempt}. */
  interface RequestedChange {
    Layout attempt(Versioned<Layout> current) throws Exception;
  }

  /** The manager's thread. */
  private final ScheduledExecutorService thread;

  private final LayoutCommits commits;

  RequestedChanges(ScheduledExecutorService thread, LayoutCommits commits) {
    this.thread = thread;
    this.commits = commits;
  }

  /**
   * Runs {@code change} on the manager's thread, one change at a time with the failure handling,
   * from a fresh read of the layout; a lost compare-and-set is retried (ten times at most). A
   * {@link BadRequestException} fails the request at once, with nothing changed.
   */
  CompletableFuture<Layout> onRequest(String what, RequestedChange change) {
    CompletableFuture<Layout> result = new CompletableFuture<>();
    Runnable run =
        () -> {
          int timeouts = 0;
          for (int attempt = 0; attempt < 10; attempt++) {
            try {
              Versioned<Layout> current = commits.read();
              result.complete(change.attempt(current));
              return;
            } catch (BadRequestException e) {
              result.completeExceptionally(e);
              return;
            } catch (Exception e) {
              Throwable cause = ChangeBackoff.unwrap(e);
              // A lost compare-and-set is tried again from a fresh read; so, three times, is a
              // node too slow to answer its seal (a change that sealed some nodes and then failed
              // leaves them sealed ahead, which the next change or round commits).
              boolean slow =
                  cause instanceof java.util.concurrent.TimeoutException
                      || cause instanceof TransportException;
              if (!(cause instanceof LayoutVersionMismatchException)
                  && !(slow && ++timeouts <= 3)) {
                result.completeExceptionally(cause);
                return;
              }
            }
          }
          result.completeExceptionally(
              new IllegalStateException("the layout kept changing; " + what + " gave up"));
        };
    try {
      thread.execute(run);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      result.completeExceptionally(new IllegalStateException("the node is shutting down", e));
    }
    return result;
  }
}
