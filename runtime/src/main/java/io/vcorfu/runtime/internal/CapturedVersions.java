package io.vcorfu.runtime.internal;

import io.vcorfu.runtime.Versioned;
import java.util.Map;
import java.util.TreeMap;

/**
 * The versions a view of a {@link Versioned} object captured: one after its base and one after
 * every log entry it applied, by global address, the newest {@code limit} kept.
 *
 * <p>Because a version is captured after every applied entry, the version as of any address S at
 * or above the oldest kept one is the one captured at the greatest address at or below S: no
 * update between them touched the object. Serving it costs a lookup and a {@link
 * Versioned#restoreVersion} on a new instance: O(log k) in the number of kept versions, with
 * nothing replayed or copied. Addresses below the oldest kept version are not served here (the
 * view replays them instead).
 *
 * <p>Not thread-safe: used under its {@link StreamView}'s lock.
 */
final class CapturedVersions {
  private final TreeMap<Long, Object> byAddress = new TreeMap<>();
  private final int limit;

  CapturedVersions(int limit) {
    this.limit = limit;
  }

  /** Captures the version of {@code live} as of {@code address}, dropping the oldest beyond the limit. */
  void capture(long address, Object live) {
    if (limit == 0) {
      return;
    }
    byAddress.put(address, ((Versioned<?>) live).captureVersion());
    while (byAddress.size() > limit) {
      byAddress.pollFirstEntry();
    }
  }

  /**
   * Makes {@code target}, a new instance in the class's initial state, hold the version as of
   * {@code snapshot}; false (target untouched) when {@code snapshot} is older than every kept
   * version. The view must have applied every update up to {@code snapshot}.
   */
  @SuppressWarnings("unchecked")
  boolean restoreInto(Object target, long snapshot) {
    Map.Entry<Long, Object> e = byAddress.floorEntry(snapshot);
    if (e == null) {
      return false;
    }
    ((Versioned<Object>) target).restoreVersion(e.getValue());
    return true;
  }

  /** How many versions are kept. */
  int size() {
    return byAddress.size();
  }
}
