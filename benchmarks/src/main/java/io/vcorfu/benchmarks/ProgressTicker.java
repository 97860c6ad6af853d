package io.vcorfu.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Prints one progress line per second on standard error while a benchmark loads: {@code progress
 * NAME SECONDS ops N total M}, where SECONDS counts whole seconds from the start, M is what the
 * benchmark has completed since the start (read from its counter) and N the part of M completed in
 * that second. The lines come from a daemon thread that wakes on each whole second; {@link #close}
 * stops it and waits for it, so no line is printed once close has returned (none follows the
 * result).
 */
final class ProgressTicker implements AutoCloseable {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private final Thread thread;
  private volatile boolean closed;

  private ProgressTicker(String name, long start, long limitNanos, LongSupplier total) {
    thread = new Thread(() -> tick(name, start, limitNanos, total), name + "-progress");
    thread.setDaemon(true);
  }

  /** Starts ticking now, until closed. */
  static ProgressTicker start(String name, LongSupplier total) {
    return start(name, System.nanoTime(), Long.MAX_VALUE, total);
  }

  /**
   * Ticks at {@code start} ({@link System#nanoTime()} time) plus 1 s, 2 s, ... as long as that is
   * at most {@code limitNanos} after {@code start}, or until closed.
   */
  static ProgressTicker start(String name, long start, long limitNanos, LongSupplier total) {
    ProgressTicker t = new ProgressTicker(name, start, limitNanos, total);
    t.thread.start();
    return t;
  }

  private void tick(String name, long start, long limitNanos, LongSupplier total) {
    long last = 0;
    for (long second = 1; second <= limitNanos / SECOND; second++) {
      long wait = start + second * SECOND - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait);
        } catch (InterruptedException stopped) {
          return;
        }
      }
      if (closed) {
        return;
      }
      long now = total.getAsLong();
      System.err.println(
          "progress " + name + " " + second + " ops " + (now - last) + " total " + now);
      last = now;
    }
  }

  /** Stops the lines and waits until the thread has ended. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
