package io.vcorfu.client.chain;

import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.StreamSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The commits a writer owes the earlier copies of the entries it committed, per node: carried by
 * the next chain write to that node ({@link #take}), or, when none goes there within a short delay,
 * sent on their own in one message per kind. Under load that is no message of their own at all;
 * idle, a copy learns of its commit after the delay.
 *
 * <p>Losing one is harmless (the decider holds the entry, and a reader of an uncommitted copy asks
 * it), so nothing here waits for or retries a commit. Callers that must know a commit landed (a
 * trim's settling, a decision after a failure) send it directly instead. Thread-safe.
 */
final class CommitNotices {
  /** How long a commit waits for a chain write to carry it before it is sent on its own. */
  static final long DELAY_MICROS = 1000;

  private final ReplicaClient ops;
  private final Executor later =
      CompletableFuture.delayedExecutor(DELAY_MICROS, TimeUnit.MICROSECONDS);
  private final ConcurrentHashMap<Endpoint, Pending> pending = new ConcurrentHashMap<>();

  CommitNotices(ReplicaClient ops) {
    this.ops = ops;
  }

  /** The commits owed to one node; guarded by itself. */
  private static final class Pending {
    List<Long> log = new ArrayList<>();
    List<StreamSlot> slots = new ArrayList<>();
    boolean flushScheduled;
  }

  /** What a chain write to a node carries: the commits owed to it so far. */
  record Owed(List<Long> log, List<StreamSlot> slots) {
    static final Owed NONE = new Owed(List.of(), List.of());
  }

  /** Owes {@code node} the commit of its log copy at {@code globalAddress}. */
  void log(Endpoint node, long globalAddress) {
    Pending p = pending.computeIfAbsent(node, k -> new Pending());
    synchronized (p) {
      p.log.add(globalAddress);
      schedule(node, p);
    }
  }

  /** Owes {@code node} the commit of its stream copies in {@code slots}. */
  void stream(Endpoint node, List<StreamSlot> slots) {
    Pending p = pending.computeIfAbsent(node, k -> new Pending());
    synchronized (p) {
      p.slots.addAll(slots);
      schedule(node, p);
    }
  }

  private void schedule(Endpoint node, Pending p) {
    if (!p.flushScheduled) {
      p.flushScheduled = true;
      later.execute(() -> flush(node));
    }
  }

  /** Takes the commits owed to {@code node}, for a chain write about to go there. */
  Owed take(Endpoint node) {
    Pending p = pending.get(node);
    if (p == null) {
      return Owed.NONE;
    }
    synchronized (p) {
      if (p.log.isEmpty() && p.slots.isEmpty()) {
        return Owed.NONE;
      }
      Owed owed = new Owed(p.log, p.slots);
      p.log = new ArrayList<>();
      p.slots = new ArrayList<>();
      return owed;
    }
  }

  /** Sends what is still owed to {@code node}, one message per kind. */
  private void flush(Endpoint node) {
    Pending p = pending.get(node);
    Owed owed;
    synchronized (p) {
      p.flushScheduled = false;
      owed = new Owed(p.log, p.slots);
      p.log = new ArrayList<>();
      p.slots = new ArrayList<>();
    }
    if (!owed.log().isEmpty()) {
      ops.logCommit(node, owed.log()).exceptionally(e -> null);
    }
    if (!owed.slots().isEmpty()) {
      ops.streamCommit(node, owed.slots()).exceptionally(e -> null);
    }
  }
}
