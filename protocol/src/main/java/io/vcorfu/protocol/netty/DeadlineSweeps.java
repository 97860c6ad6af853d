package io.vcorfu.protocol.netty;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One transport's timeout sweeps: every {@link CallDeadlines#SWEEP_NANOS}, while any connection
 * holds calls, one pass on the transport's timeout thread sweeps every connection that does, so
 * that a client with many connections under load costs that thread one wake-up a period instead of
 * one per connection (and its I/O threads no timer registration per connection and period).
 *
 * <p>A connection's {@link CallDeadlines} enlists itself when it starts holding calls and is swept
 * in the next pass; one that still holds calls after its sweep enlists itself again, for the pass
 * after. A pass sweeps the connections enlisted when it starts, each once. Thread-safe: connections
 * enlist from any thread; passes run one at a time on the timeout thread.
 */
final class DeadlineSweeps {
  private final ScheduledExecutorService thread;
  private final Queue<CallDeadlines<?>> enlisted = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile long passes;

  DeadlineSweeps(ScheduledExecutorService thread) {
    this.thread = thread;
  }

  /** Sweeps {@code deadlines} in the next pass. */
  void enlist(CallDeadlines<?> deadlines) {
    enlisted.add(deadlines);
    schedule();
  }

  /** Schedules the next pass unless one is scheduled. */
  private void schedule() {
    if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
      try {
        thread.schedule(this::pass, CallDeadlines.SWEEP_NANOS, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException transportClosed) {
        // The transport closed its clients, failing their calls, before its timeout thread.
        scheduled.set(false);
      }
    }
  }

  /** Passes made so far (for tests). */
  long passes() {
    return passes;
  }

  private void pass() {
    passes++; // written by the timeout thread alone
    // Each connection enlisted when the pass starts, once: one that enlists again meanwhile (it
    // still holds calls) waits for the next pass.
    for (int n = enlisted.size(); n > 0; n--) {
      CallDeadlines<?> d = enlisted.poll();
      if (d == null) {
        break;
      }
      d.sweep();
    }
    // Cleared before looking again: a connection enlisted meanwhile either saw it cleared and
    // scheduled a pass itself, or is seen here.
    scheduled.set(false);
    if (!enlisted.isEmpty()) {
      schedule();
    }
  }
}
