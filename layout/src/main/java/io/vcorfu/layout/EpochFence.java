package io.vcorfu.layout;

import io.vcorfu.protocol.SealedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A node's fence against writes of entries whose token was issued in an epoch it has sealed.
 *
 * <p>Invariant: once {@link #seal} has raised the epoch to {@code e} and its future has completed,
 * no entry stamped with an epoch below {@code e} is ever written on this node again. A write is
 * admitted only if its entry's epoch is at least the current one, and runs to completion (its
 * future completes) before a later seal's future completes; so a sequencer that seals every replica
 * and then reads their tails sees every write admitted under an older epoch, and no such write can
 * land afterwards. Entries stamped with a newer epoch than this node knows are admitted (a token of
 * a newer epoch exists only once this node's replicas have been sealed to it, unless the node lost
 * its sealed epoch with its memory-only state).
 *
 * <p>Thread-safe: all state under this object's monitor.
 */
public final class EpochFence {
  private long epoch;

  /** Writes admitted at the current epoch that have not finished. */
  private int current;

  /** Writes admitted before the last seal that have not finished. */
  private int older;

  /** Seals waiting for {@link #older} to reach 0. */
  private final List<CompletableFuture<Void>> drains = new ArrayList<>();

  /** A fence admitting entries of {@code epoch} and later. */
  public EpochFence(long epoch) {
    this.epoch = epoch;
  }

  /** The lowest epoch a write is admitted at. */
  public synchronized long epoch() {
    return epoch;
  }

  /**
   * Runs {@code write} if {@code entryEpoch} is not sealed, else fails with {@link
   * SealedException}; a seal waits for the write's future to complete.
   */
  public <T> CompletableFuture<T> admit(long entryEpoch, Supplier<CompletableFuture<T>> write) {
    long admittedAt;
    synchronized (this) {
      if (entryEpoch < epoch) {
        return CompletableFuture.failedFuture(new SealedException(epoch));
      }
      admittedAt = epoch;
      current++;
    }
    CompletableFuture<T> f;
    try {
      f = write.get();
    } catch (RuntimeException e) {
      finished(admittedAt);
      throw e;
    }
    return f.whenComplete((v, e) -> finished(admittedAt));
  }

  /**
   * Raises the epoch to {@code next} (no change if it is not higher) and returns a future that
   * completes once every write admitted under an older epoch has finished.
   */
  public synchronized CompletableFuture<Void> seal(long next) {
    if (next > epoch) {
      epoch = next;
      older += current;
      current = 0;
    }
    CompletableFuture<Void> drained = new CompletableFuture<>();
    if (older == 0) {
      drained.complete(null);
    } else {
      drains.add(drained);
    }
    return drained;
  }

  private void finished(long admittedAt) {
    List<CompletableFuture<Void>> ready = List.of();
    synchronized (this) {
      if (admittedAt == epoch) {
        current--;
      } else {
        older--;
        if (older == 0) {
          ready = new ArrayList<>(drains);
          drains.clear();
        }
      }
    }
    ready.forEach(d -> d.complete(null));
  }
}
