package io.vcorfu.runtime.smr;

import io.vcorfu.runtime.VersionCapturing;
import java.util.Map;
import java.util.TreeMap;

/**
 * The versions a view of a {@link VersionCapturing} object captured: one after its base and one
 * after every log entry it applied, by global address. The newest are kept, at most {@code limit}
 * of them, and the oldest given back while the runtime's {@link HistoryBudget} is spent: an old
 * version keeps alive what later updates replaced, which is estimated as its entry's serialized
 * arguments plus {@value #PATH_BYTES} bytes for the copied path of the persistent structure.
 *
 * <p>Because a version is captured after every applied entry, the version as of any address S at or
 * above the oldest kept one is the one captured at the greatest address at or below S: no update
 * between them touched the object. Serving it costs a lookup and a {@link
 * VersionCapturing#restoreVersion} on a new instance: O(log k) in the number of kept versions, with
 * nothing replayed or copied. Addresses below the oldest kept version are not served here (the view
 * replays them instead).
 *
 * <p>Not thread-safe: used under its {@link SmrEngine}'s lock.
 */
final class CapturedVersions {
  static final int PATH_BYTES = 256;

  private record Captured(Object version, long bytes) {}

  private final TreeMap<Long, Captured> byAddress = new TreeMap<>();
  private final int limit;
  private final HistoryBudget budget;
  private long bytes;

  CapturedVersions(int limit, HistoryBudget budget) {
    this.limit = limit;
    this.budget = budget;
  }

  /**
   * Captures the version of {@code live} as of {@code address}, whose update carried {@code
   * argumentBytes} bytes of serialized arguments; drops the oldest versions beyond the bounds.
   */
  void capture(long address, Object live, long argumentBytes) {
    if (limit == 0) {
      return;
    }
    Captured c =
        new Captured(((VersionCapturing<?>) live).captureVersion(), argumentBytes + PATH_BYTES);
    Captured replaced = byAddress.put(address, c);
    long added = c.bytes() - (replaced == null ? 0 : replaced.bytes());
    bytes += added;
    budget.add(added);
    while (byAddress.size() > limit || (budget.spent() && byAddress.size() > 1)) {
      long freed = byAddress.pollFirstEntry().getValue().bytes();
      bytes -= freed;
      budget.add(-freed);
    }
  }

  /** Gives every kept version's bytes back to the budget and forgets them. */
  void release() {
    budget.add(-bytes);
    bytes = 0;
    byAddress.clear();
  }

  /**
   * Makes {@code target}, a new instance in the class's initial state, hold the version as of
   * {@code snapshot}; false (target untouched) when {@code snapshot} is older than every kept
   * version. The view must have applied every update up to {@code snapshot}.
   */
  @SuppressWarnings("unchecked")
  boolean restoreInto(Object target, long snapshot) {
    Map.Entry<Long, Captured> e = byAddress.floorEntry(snapshot);
    if (e == null) {
      return false;
    }
    ((VersionCapturing<Object>) target).restoreVersion(e.getValue().version());
    return true;
  }

  /** How many versions are kept. */
  int size() {
    return byAddress.size();
  }
}
