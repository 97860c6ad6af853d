package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** {@link StreamLog#tailsPast}'s default: asking {@link StreamLog#tails} every 10 ms. */
final class Waits {
  private static final Executor LATER =
      CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS);

  private Waits() {}

  static CompletableFuture<Tails> tailsPast(
      StreamLog log, List<StreamId> streams, long[] marks, long deadline) {
    return log.tails(streams)
        .thenCompose(
            t -> {
              if (passed(t, streams, marks) || System.nanoTime() >= deadline) {
                return CompletableFuture.completedFuture(t);
              }
              return CompletableFuture.supplyAsync(() -> null, LATER)
                  .thenCompose(v -> tailsPast(log, streams, marks, deadline));
            });
  }

  /** Whether some stream's tail in {@code t} is past its mark. */
  static boolean passed(Tails t, List<StreamId> streams, long[] marks) {
    for (int i = 0; i < marks.length; i++) {
      if (t.streamTails().getOrDefault(streams.get(i), -1L) > marks[i]) {
        return true;
      }
    }
    return false;
  }
}
