package io.vcorfu.logunit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The queue from the engine to the {@link SegmentWriter}'s thread: the writer's work items, in the
 * order they are to happen in the files, and holds that hand a group of items over at once.
 *
 * <p>The producer side ({@link #add}, {@link #hold}, {@link #release}) is guarded by the engine's
 * monitor: every caller enqueues under it, which fixes the file order. The writer thread takes from
 * the other end.
 */
final class WriteQueue {
  sealed interface Item permits Append, Roll, Delete, Barrier, Stop, Group {}

  /** A record, preceded by a FORCED record when {@code marker} is not null. */
  record Append(byte[] marker, byte[] frame, long seq) implements Item {}

  record Roll(int sealed, long sealedLength, byte[] index, int next) implements Item {}

  record Delete(int segment) implements Item {}

  record Barrier(CompletableFuture<Void> future) implements Item {}

  record Stop() implements Item {}

  /** Items queued while held (see {@link #hold}): the writer takes them in one batch. */
  record Group(List<Item> items) implements Item {}

  private final LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();

  // Producer side, guarded by the engine's monitor (every caller enqueues under it).
  private List<Item> held;
  private int holds;

  /** Queues {@code item}, or keeps it with the held items while a hold is on. */
  void add(Item item) {
    if (held != null) {
      held.add(item);
    } else {
      queue.add(item);
    }
  }

  /** Queues {@code item} at once, past any hold (the stop item at close). */
  void addNow(Item item) {
    queue.add(item);
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

  void release() {
    if (holds == 0) {
      throw new IllegalStateException("release without hold");
    }
    if (--holds == 0) {
      List<Item> items = held;
      held = null;
      if (!items.isEmpty()) {
        queue.add(items.size() == 1 ? items.get(0) : new Group(items));
      }
    }
  }

  /** Waits for the next item. */
  Item take() throws InterruptedException {
    return queue.take();
  }

  /** Waits at most {@code nanos} for the next item; null when none came. */
  Item poll(long nanos) throws InterruptedException {
    return queue.poll(nanos, TimeUnit.NANOSECONDS);
  }

  /** Moves up to {@code max} items that are queued already into {@code batch}. */
  void drainTo(List<Item> batch, int max) {
    queue.drainTo(batch, max);
  }

  /** Moves every item that is queued already into {@code rest}. */
  void drainTo(List<Item> rest) {
    queue.drainTo(rest);
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
