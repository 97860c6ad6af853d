package io.vcorfu.server.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Predicate;

/**
 * Runs a watch on the calling command's thread: each item goes to {@code print} as it arrives (on
 * the watch's thread, one at a time; a slow terminal slows the watch, never piles up items), until
 * {@code print} answers false (enough) or the watch fails. The command's thread waits; a signal
 * ends the process as for every serving command.
 */
final class Following {
  private Following() {}

  /** Follows {@code source} until {@code print} answers false; rethrows the watch's failure. */
  static <T> void follow(Flow.Publisher<T> source, Predicate<? super T> print) throws Exception {
    CompletableFuture<Void> ended = new CompletableFuture<>();
    source.subscribe(
        new Flow.Subscriber<T>() {
          private Flow.Subscription subscription;

          @Override
          public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(1);
          }

          @Override
          public void onNext(T item) {
            boolean more;
            try {
              more = print.test(item);
            } catch (RuntimeException e) {
              subscription.cancel();
              ended.completeExceptionally(e);
              return;
            }
            if (more) {
              subscription.request(1);
            } else {
              subscription.cancel();
              ended.complete(null);
            }
          }

          @Override
          public void onError(Throwable t) {
            ended.completeExceptionally(t);
          }

          @Override
          public void onComplete() {
            ended.complete(null);
          }
        });
    try {
      ended.get();
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      throw e;
    }
  }
}
