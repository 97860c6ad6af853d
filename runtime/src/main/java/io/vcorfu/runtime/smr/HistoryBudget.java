package io.vcorfu.runtime.smr;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory a runtime's live views spend on old versions (retained update histories and captured
 * versions), against one bound for the whole runtime ({@code RuntimeOptions.retainedHistoryBytes}):
 * a runtime with thousands of busy objects holds no more than one with a single object. A view that
 * adds while the budget is spent gives back its own oldest (captured versions) or its whole history
 * (updates), so the total stays within the bound plus one version per view.
 *
 * <p>Thread-safe.
 */
final class HistoryBudget {
  private final long limit;
  private final AtomicLong used = new AtomicLong();

  HistoryBudget(long limit) {
    this.limit = limit;
  }

  /** Counts {@code bytes} more (negative: given back). */
  void add(long bytes) {
    used.addAndGet(bytes);
  }

  /** Whether more than the bound is spent. */
  boolean spent() {
    return used.get() > limit;
  }

  long used() {
    return used.get();
  }

  long limit() {
    return limit;
  }
}
