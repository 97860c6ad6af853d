package io.vcorfu.protocol.netty;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The request timeouts of one connection's calls, for a client whose calls all wait the same time:
 * calls fall due in the order they were sent, so they are kept in that order and, only while any is
 * held, swept every {@link #SWEEP_NANOS} on the transport's timeout thread (not an I/O thread:
 * under pipelined load the I/O threads are the busiest), in the pass that sweeps every connection
 * of the transport holding calls ({@link DeadlineSweeps}). A sweep drops settled calls from the
 * front and expires the calls at the front whose deadline has passed (each at most one sweep period
 * late, never early), then enlists for the next pass if calls remain. An idle connection enlists
 * for nothing, and a call costs one queue insertion instead of a timer's registration and
 * cancellation.
 *
 * <p>Calls sent a few microseconds apart by different threads may enter slightly out of deadline
 * order; such a call expires at most that much later. Thread-safe: calls are added from any thread.
 */
final class CallDeadlines<C> {
  /** How often a connection holding calls looks for calls past their deadline. */
  static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final Queue<C> bySending = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean enlisted = new AtomicBoolean();
  private final DeadlineSweeps sweeps;
  private final ToLongFunction<C> deadline;
  private final Predicate<C> settled;
  private final Consumer<C> expire;

  /**
   * Swept by {@code sweeps}; a call's {@code deadline} is on {@link System#nanoTime()}'s clock, a
   * call is {@code settled} once answered or failed, and {@code expire} fails it for its timeout.
   */
  CallDeadlines(
      DeadlineSweeps sweeps, ToLongFunction<C> deadline, Predicate<C> settled, Consumer<C> expire) {
    this.sweeps = sweeps;
    this.deadline = deadline;
    this.settled = settled;
    this.expire = expire;
  }

  /** Holds {@code call} until it settles or its deadline passes. */
  void add(C call) {
    bySending.add(call);
    enlist();
  }

  /**
   * Calls held (outstanding, or settled and not yet swept out), plus one while enlisted for a
   * sweep: 0 once every call has settled and a sweep has passed.
   */
  int held() {
    return bySending.size() + (enlisted.get() ? 1 : 0);
  }

  private void enlist() {
    if (!enlisted.get() && enlisted.compareAndSet(false, true)) {
      sweeps.enlist(this);
    }
  }

  /** Sweeps the calls held; the timeout thread's pass calls it. */
  void sweep() {
    long now = System.nanoTime();
    C call;
    while ((call = bySending.peek()) != null) {
      boolean done = settled.test(call);
      if (!done && deadline.applyAsLong(call) - now > 0) {
        break;
      }
      bySending.poll();
      if (!done) {
        expire.accept(call);
      }
    }
    // Cleared before looking again: a call added meanwhile either saw it cleared and enlisted
    // this connection itself, or is seen here.
    enlisted.set(false);
    if (!bySending.isEmpty()) {
      enlist();
    }
  }
}
