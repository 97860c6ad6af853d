package io.vcorfu.logunit.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The queue from the engine to the {@link SegmentWriter}: the writer's work items, in the order
 * they are to happen in the files, and holds that hand a group of items over at once.
 *
 * <p>The producer side ({@link #add}, {@link #hold}, {@link #release}) is guarded by the engine's
 * monitor: every caller enqueues under it, which fixes the file order. Items are taken from the
 * other end by whichever thread holds the writer's lock: the writer's own thread, or (when the
 * policy lets a caller write without forcing) the caller that queued them. Adding an item does not
 * wake the writer's thread; {@link #signal} does.
 */
final class WriteQueue {
  sealed interface Item permits Append, Roll, Delete, Barrier, Stop, Group {}

  /** A record, preceded by a FORCED record when {@code marker} is not null. */
  record Append(byte[] marker, byte[] frame, long seq) implements Item {}

  record Roll(int sealed, long sealedLength, byte[] index, int next) implements Item {}

  record Delete(int segment) implements Item {}

  /**
   * Completes {@code future} once what was queued before it is durable; on {@code home} when not
   * null (see {@code StorageOptions#completionHome}), else on the writer's completion thread.
   */
  record Barrier(CompletableFuture<Void> future, Executor home) implements Item {}

  record Stop() implements Item {}

  /** Items queued while held (see {@link #hold}): the writer takes them in one batch. */
  record Group(List<Item> items) implements Item {}

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition queued = lock.newCondition();
  private final ArrayDeque<Item> items = new ArrayDeque<>();

  /** Items are queued that the writer's thread was told of (by {@link #signal}). */
  private boolean signalled;

  // Producer side, guarded by the engine's monitor (every caller enqueues under it).
  private List<Item> held;
  private int holds;

  /** Queues {@code item}, or keeps it with the held items while a hold is on. */
  void add(Item item) {
    if (held != null) {
      held.add(item);
    } else {
      put(item);
    }
  }

  /** Queues {@code item} at once, past any hold, and wakes the writer (the stop item at close). */
  void addNow(Item item) {
    put(item);
    signal();
  }

  private void put(Item item) {
    lock.lock();
    try {
      items.add(item);
    } finally {
      lock.unlock();
    }
  }

  /** Wakes the writer's thread if it waits for items and some are queued. */
  void signal() {
    wakeWriter(false);
  }

  /** Wakes the writer's thread even with nothing queued (for work of its own, as the zeroes). */
  void wake() {
    wakeWriter(true);
  }

  private void wakeWriter(boolean evenIfEmpty) {
    lock.lock();
    try {
      if (!signalled && (evenIfEmpty || !items.isEmpty())) {
        signalled = true;
        queued.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** True while a hold is on: what is added now is handed over only at the last release. */
  boolean holding() {
    return holds > 0;
  }

  /**
   * Holds back what is queued from now until the matching {@link #release}, then hands it to the
   * writer at once, so records made together (the steps of one chain write) are forced together
   * instead of the writer waking for the first and forcing the rest again. Holds nest.
   */
  void hold() {
    if (holds++ == 0) {
      held = new ArrayList<>();
    }
  }

  /** Ends a hold; at the last one, queues what was held and returns it (else an empty list). */
  List<Item> release() {
    if (holds == 0) {
      throw new IllegalStateException("release without hold");
    }
    if (--holds > 0) {
      return List.of();
    }
    List<Item> released = held;
    held = null;
    if (!released.isEmpty()) {
      put(released.size() == 1 ? released.get(0) : new Group(released));
    }
    return released;
  }

  /**
   * The writer's thread: waits until it is signalled (for items or work of its own), at most {@code
   * nanos} (forever when negative).
   */
  void await(long nanos) throws InterruptedException {
    lock.lock();
    try {
      long left = nanos;
      while (!signalled && (nanos < 0 || left > 0)) {
        if (nanos < 0) {
          queued.await();
        } else {
          left = queued.awaitNanos(left);
        }
      }
      signalled = false;
    } finally {
      lock.unlock();
    }
  }

  /** Moves up to {@code max} items that are queued already into {@code batch}. */
  void drainTo(List<Item> batch, int max) {
    lock.lock();
    try {
      for (int i = 0; i < max && !items.isEmpty(); i++) {
        batch.add(items.poll());
      }
    } finally {
      lock.unlock();
    }
  }

  /** Moves every item that is queued already into {@code rest}. */
  void drainTo(List<Item> rest) {
    drainTo(rest, Integer.MAX_VALUE);
  }

  /**
   * Moves every queued item into {@code batch} when all of them are records and barriers (the work
   * a caller may do itself: no force, no file created or deleted); false, moving nothing, when
   * anything else is queued.
   */
  boolean drainPlain(List<Item> batch) {
    lock.lock();
    try {
      for (Item item : items) {
        if (!plain(item)) {
          return false;
        }
      }
      batch.addAll(items);
      items.clear();
      return true;
    } finally {
      lock.unlock();
    }
  }

  private static boolean plain(Item item) {
    if (item instanceof Group g) {
      for (Item i : g.items()) {
        if (!plain(i)) {
          return false;
        }
      }
      return true;
    }
    return item instanceof Append || item instanceof Barrier;
  }

  /** {@code batch} with the items of every group in its place, in order. */
  static List<Item> flatten(List<Item> batch) {
    boolean grouped = false;
    for (Item item : batch) {
      grouped |= item instanceof Group;
    }
    if (!grouped) {
      return batch;
    }
    List<Item> flat = new ArrayList<>();
    for (Item item : batch) {
      if (item instanceof Group g) {
        flat.addAll(g.items());
      } else {
        flat.add(item);
      }
    }
    return flat;
  }
}
