package io.vcorfu.client.chain;

import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The commits a writer owes, per node, until they ride on its next message to that node: an entry
 * every copy of which holds it is committed (see {@link ChainWriter}), and marking its copies so is
 * only advice to readers, so the marks need no message of their own. A node's pending commits go
 * out with the next chain write this client sends it ({@link #take}), or on their own, all in one
 * message, {@link #FLUSH_DELAY_MICROS} after the first of them was added when no write went there
 * meanwhile. A mark that never arrives (its message lost, the node gone) leaves the copy
 * uncommitted: a reader of it waits briefly and then has the entry decided, which commits it.
 *
 * <p>Thread-safe: each node's pending marks are guarded by their own lock; at most one flush per
 * writer is scheduled at a time.
 */
final class RidingCommits {
  /**
   * How long commits wait for a write to ride on. Readers of a copy meet it uncommitted for about
   * this long and re-read it every 250 to 2,000 us meanwhile ({@code
   * RepairingReader.retryDelayMicros}).
   */
  static final long FLUSH_DELAY_MICROS = 2_000;

  /** One timer thread for every writer of the process: a flush is a few map reads and a send. */
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "vcorfu-commit-flush");
            t.setDaemon(true);
            return t;
          });

  private final ReplicaClient ops;
  private final long flushDelayMicros;
  private final Map<Endpoint, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicBoolean armed = new AtomicBoolean();

  RidingCommits(ReplicaClient ops) {
    this(ops, FLUSH_DELAY_MICROS);
  }

  /** Marks that wait {@code flushDelayMicros} for a write to ride on (tests choose it). */
  RidingCommits(ReplicaClient ops, long flushDelayMicros) {
    this.ops = ops;
    this.flushDelayMicros = flushDelayMicros;
  }

  /** What one node is owed: log addresses and stream slots. */
  private static final class Pending {
    List<Long> log = new ArrayList<>();
    List<StreamSlot> slots = new ArrayList<>();
  }

  /** The marks taken for one message. */
  record Marks(List<Long> log, List<StreamSlot> slots) {
    static final Marks NONE = new Marks(List.of(), List.of());

    boolean isEmpty() {
      return log.isEmpty() && slots.isEmpty();
    }
  }

  /** Owes a commit to every copy of {@code entry}, which every copy holds. */
  void committed(LogEntryMsg entry, ChainPlan plan) {
    for (ChainPlan.Visit v : plan.visits()) {
      Pending p = pending.computeIfAbsent(v.endpoint(), e -> new Pending());
      synchronized (p) {
        if (v.role() == ChainPlan.Role.LOG) {
          p.log.add(entry.getGlobalAddress());
        } else {
          p.slots.addAll(ChainWriter.slotsFor(entry, v));
        }
      }
    }
    // One timer per writer at a time, whatever the number of nodes and entries owed.
    if (armed.compareAndSet(false, true)) {
      TIMER.schedule(this::flush, flushDelayMicros, TimeUnit.MICROSECONDS);
    }
  }

  /** Takes everything owed to {@code node}, to send with a message going there now. */
  Marks take(Endpoint node) {
    Pending p = pending.get(node);
    if (p == null) {
      return Marks.NONE;
    }
    synchronized (p) {
      if (p.log.isEmpty() && p.slots.isEmpty()) {
        return Marks.NONE;
      }
      Marks m = new Marks(p.log, p.slots);
      p.log = new ArrayList<>();
      p.slots = new ArrayList<>();
      return m;
    }
  }

  /** Sends what is still owed to each node in a message of its own. */
  private void flush() {
    armed.set(false);
    for (Endpoint node : pending.keySet()) {
      Marks m = take(node);
      if (!m.isEmpty()) {
        // A lost commit is harmless: readers decide the entry, which commits it.
        ops.chainWrite(node, null, List.of(), false, m.log(), m.slots()).exceptionally(e -> null);
      }
    }
  }
}
