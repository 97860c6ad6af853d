package io.vcorfu.protocol.inmemory;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/** Runs tasks one at a time, in submission order, on a shared executor (one "connection"). */
final class SerialExecutor implements Executor {
  private final Executor backing;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean();

  SerialExecutor(Executor backing) {
    this.backing = backing;
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    schedule();
  }

  private void schedule() {
    if (!tasks.isEmpty() && running.compareAndSet(false, true)) {
      try {
        backing.execute(this::drain);
      } catch (RejectedExecutionException e) {
        running.set(false);
        tasks.clear();
      }
    }
  }

  private void drain() {
    try {
      Runnable task;
      while ((task = tasks.poll()) != null) {
        task.run();
      }
    } finally {
      running.set(false);
      schedule();
    }
  }
}
