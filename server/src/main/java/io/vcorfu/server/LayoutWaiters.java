package io.vcorfu.server;

import io.vcorfu.layout.Layout;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Layout questions that wait for a newer layout than the asker holds (a {@code GET_LAYOUT} with
 * {@code wait_ms}): each is answered as soon as the node adopts a layout of a newer epoch, or with
 * the layout it has once its wait is over.
 *
 * <p>Invariant: every question is answered exactly once, with a layout the node had adopted by then
 * (never one it has not), and no later than its wait (capped at {@link #MAX_WAIT_MS}); at most
 * {@link #MAX_WAITING} wait at once, further ones are answered at once. Thread-safe.
 */
final class LayoutWaiters {
  /** The longest a question waits, whatever it asks for. */
  static final long MAX_WAIT_MS = 5_000;

  /** The most questions waiting at once. */
  static final int MAX_WAITING = 10_000;

  private final Supplier<Layout> current;
  private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();

  private record Waiter(long newerThan, CompletableFuture<Layout> answer) {}

  /** Questions about the layout {@code current} gives (null while the node has none). */
  LayoutWaiters(Supplier<Layout> current) {
    this.current = current;
  }

  /**
   * The layout, once it is of an epoch above {@code newerThan} or {@code waitMs} has passed (at
   * once when {@code waitMs} is 0); null when the node has no layout by then.
   */
  CompletableFuture<Layout> answer(long newerThan, long waitMs) {
    Layout now = current.get();
    if (waitMs <= 0 || (now != null && now.epoch() > newerThan) || waiting.size() >= MAX_WAITING) {
      return CompletableFuture.completedFuture(now);
    }
    Waiter w = new Waiter(newerThan, new CompletableFuture<>());
    waiting.add(w);
    // A layout adopted between the read above and the add is not missed: look again.
    Layout again = current.get();
    if (again != null && again.epoch() > newerThan && waiting.remove(w)) {
      w.answer().complete(again);
    }
    return w.answer()
        .completeOnTimeout(null, Math.min(waitMs, MAX_WAIT_MS), TimeUnit.MILLISECONDS)
        .thenApply(
            l -> {
              waiting.remove(w);
              return l != null ? l : current.get();
            });
  }

  /** The node has adopted {@code layout}: the questions it answers are answered with it. */
  void adopted(Layout layout) {
    for (Waiter w : waiting) {
      if (w.newerThan() < layout.epoch() && waiting.remove(w)) {
        w.answer().complete(layout);
      }
    }
  }

  /** How many questions wait now. */
  int waiting() {
    return waiting.size();
  }
}
