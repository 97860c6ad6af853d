package io.vcorfu.runtime.smr;

import java.util.TreeMap;

/**
 * Where a caller of a mutator-accessor meets its outcome: the caller appends the update at some
 * address A and waits; the SMR engine applying A hands over what the upcall returned (or threw)
 * there. Outcomes are kept only while a caller that could want them waits: callers register with
 * the engine's version when they start (their entry's address is above it), and outcomes at or
 * below the lowest registered version are dropped.
 *
 * <p>Not thread-safe: used under its {@link SmrEngine}'s lock.
 */
final class MutatorAccessorRendezvous {
  /** What an upcall produced at one address: its value, or the exception it threw. */
  record Outcome(Object value, Exception failure) {}

  // Callers waiting for their outcome, by the engine's version when they registered.
  private final TreeMap<Long, Integer> waiterFloors = new TreeMap<>();
  private final TreeMap<Long, Outcome> outcomes = new TreeMap<>();

  /** Registers a caller whose entry will be appended above {@code floor}. */
  void register(long floor) {
    waiterFloors.merge(floor, 1, Integer::sum);
  }

  /** Unregisters a caller registered at {@code floor}; drops the outcomes no one can want. */
  void unregister(long floor) {
    if (waiterFloors.merge(floor, -1, Integer::sum) == 0) {
      waiterFloors.remove(floor);
    }
    if (waiterFloors.isEmpty()) {
      outcomes.clear();
    } else {
      outcomes.headMap(waiterFloors.firstKey(), true).clear();
    }
  }

  /** True when some caller waits, so outcomes must be kept. */
  boolean anyWaiting() {
    return !waiterFloors.isEmpty();
  }

  /** Hands over the outcome of the upcall applied at {@code address}. */
  void offer(long address, Object value, Exception failure) {
    outcomes.put(address, new Outcome(value, failure));
  }

  /** Takes the outcome at {@code address}, or null when none was handed over. */
  Outcome take(long address) {
    return outcomes.remove(address);
  }
}
