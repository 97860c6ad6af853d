package io.vcorfu.server;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.SequencedWriteResponse;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The sequenced writes one sequencer role took, by writer (the client id) and the writer's number
 * for the append, so that a retry of an append whose outcome its writer does not know is answered
 * with the attempt already taken instead of being stored again.
 *
 * <p>Invariant: every numbered sequenced write this role took is in the table, from the moment it
 * is claimed (before its token is issued) until it is evicted, except one that failed before
 * anything was written, which is released. An eviction raises {@link #searchBelow()} above the
 * evicted attempt's address, so a retry the table does not know is either one whose original was
 * never taken (nothing stored), or one whose original lies below {@link #searchBelow()}: taken by
 * an earlier sequencer or evicted, and searched for in the log. Attempts are evicted when the table
 * is over its capacity (oldest first) and, once answered, when their writer says it has the outcome
 * of every append numbered below theirs ({@link #settle}): a writer retries only appends it has no
 * outcome of, so the table holds about the appends in flight, not the last {@code capacity}, and
 * its attempts die before the node's collector has to copy them.
 *
 * <p>Thread-safe: all state under this object's monitor.
 */
final class WriterTable {
  /** How many attempts a new table keeps before it evicts the oldest. */
  static final int DEFAULT_CAPACITY = 65_536;

  /** One append of one writer. */
  record Key(StreamId writer, long seq) {}

  /** An attempt taken: its address once its token is issued (-1 before), and its answer. */
  static final class Attempt {
    private volatile long address = -1;
    private final CompletableFuture<SequencedWriteResponse> answer = new CompletableFuture<>();

    long address() {
      return address;
    }

    void issued(long globalAddress) {
      this.address = globalAddress;
    }

    CompletableFuture<SequencedWriteResponse> answer() {
      return answer;
    }
  }

  private final int capacity;
  private final Map<Key, Attempt> attempts = new LinkedHashMap<>();

  /** The lowest address this table's own attempts took; Long.MAX_VALUE before the first. */
  private long lowestTaken = Long.MAX_VALUE;

  /** One past the highest address an evicted attempt took; 0 before any eviction. */
  private long evictedBelow;

  /** Per writer (the most recent {@value #WRITERS}), the number {@link #settle} scans from. */
  private final Map<StreamId, Long> settledFrom =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<StreamId, Long> eldest) {
          return size() > WRITERS;
        }
      };

  static final int WRITERS = 4_096;

  /** How far below a writer's settled number {@link #settle} looks at most. */
  static final int SETTLE_SCAN = 1_024;

  WriterTable() {
    this(DEFAULT_CAPACITY);
  }

  WriterTable(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
  }

  /**
   * The attempt already taken for {@code key}, or null after claiming a new one for it (returned by
   * {@link #claimed}). A taken attempt at {@code abortedAddress} (>= 0) is replaced by a new one:
   * its writer learnt that it aborted.
   */
  synchronized Attempt claim(Key key, long abortedAddress) {
    Attempt held = attempts.get(key);
    if (held != null && (abortedAddress < 0 || held.address() != abortedAddress)) {
      return held;
    }
    attempts.remove(key);
    attempts.put(key, new Attempt());
    evictOverCapacity();
    return null;
  }

  /** The attempt {@link #claim} just made for {@code key}. */
  synchronized Attempt claimed(Key key) {
    return attempts.get(key);
  }

  /**
   * Evicts {@code writer}'s answered attempts numbered below {@code below}: the writer has their
   * outcomes and never attempts them again. An attempt not answered yet stays, until the table
   * evicts it for capacity.
   */
  synchronized void settle(StreamId writer, long below) {
    Long from = settledFrom.get(writer);
    for (long seq = Math.max(from == null ? 1 : from, below - SETTLE_SCAN); seq < below; seq++) {
      Key k = new Key(writer, seq);
      Attempt a = attempts.get(k);
      if (a != null && a.answer().isDone()) {
        attempts.remove(k);
        evicted(a.address());
      }
    }
    if (from == null || below > from) {
      settledFrom.put(writer, below);
    }
  }

  /** Records that {@code attempt} took {@code globalAddress}. */
  synchronized void issued(Attempt attempt, long globalAddress) {
    attempt.issued(globalAddress);
    lowestTaken = Math.min(lowestTaken, globalAddress);
  }

  /** Forgets {@code key}'s attempt {@code attempt}: it failed before anything was written. */
  synchronized void release(Key key, Attempt attempt) {
    attempts.remove(key, attempt);
  }

  /**
   * Below this global address an attempt this table does not know may have been stored (by an
   * earlier sequencer, or evicted from here); at or above it, every stored numbered attempt is in
   * the table. Long.MAX_VALUE while the table has taken nothing.
   */
  synchronized long searchBelow() {
    return Math.max(lowestTaken == Long.MAX_VALUE ? Long.MAX_VALUE : lowestTaken, evictedBelow);
  }

  synchronized int size() {
    return attempts.size();
  }

  private void evictOverCapacity() {
    Iterator<Attempt> oldest = attempts.values().iterator();
    while (attempts.size() > capacity && oldest.hasNext()) {
      Attempt a = oldest.next();
      long address = a.address();
      if (address < 0 && !a.answer().isDone()) {
        // Still in flight without a token: its address will be above every address taken so far,
        // so evicting it would leave a hole in the table's coverage. Keep it; evict a later one.
        continue;
      }
      oldest.remove();
      evicted(address);
    }
  }

  /** Records the eviction of an attempt at {@code address} (-1: it took none). */
  private void evicted(long address) {
    if (address >= 0) {
      evictedBelow = Math.max(evictedBelow, address + 1);
    }
  }
}
