package io.vcorfu.client;

import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.function.Function;

/** Small building blocks for {@link Flow.Publisher}s of the log's entries. */
public final class Publishers {
  private Publishers() {}

  /**
   * {@code source}'s items passed through {@code f}, an item for which {@code f} answers null
   * dropped (and one more asked of {@code source} in its place, so the subscriber's demand is kept
   * exactly). Signals reach the subscriber on the thread {@code source} signals on.
   */
  public static <T, R> Flow.Publisher<R> mapping(
      Flow.Publisher<T> source, Function<? super T, ? extends R> f) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(f, "f");
    return subscriber ->
        source.subscribe(
            new Flow.Subscriber<T>() {
              private Flow.Subscription upstream;

              @Override
              public void onSubscribe(Flow.Subscription s) {
                upstream = s;
                subscriber.onSubscribe(s);
              }

              @Override
              public void onNext(T item) {
                R mapped;
                try {
                  mapped = f.apply(item);
                } catch (RuntimeException e) {
                  upstream.cancel();
                  subscriber.onError(e);
                  return;
                }
                if (mapped == null) {
                  upstream.request(1);
                } else {
                  subscriber.onNext(mapped);
                }
              }

              @Override
              public void onError(Throwable t) {
                subscriber.onError(t);
              }

              @Override
              public void onComplete() {
                subscriber.onComplete();
              }
            });
  }
}
