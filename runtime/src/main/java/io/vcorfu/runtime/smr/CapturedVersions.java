package io.vcorfu.runtime.smr;

import io.vcorfu.runtime.VersionCapturing;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * The versions a view of a {@link VersionCapturing} object captured: one after its base and one
 * after every log entry it applied, by global address. A view keeps its newest {@code newest}
 * versions (for snapshot views opened later) and, beyond them, every version an open transaction of
 * its runtime may still read: those whose successor is above the runtime's {@code floor} (the
 * oldest snapshot of its open transactions, or a lower bound of the snapshot a transaction is still
 * taking; see {@code Transactions.versionsFloor}). The oldest are also given back while the
 * runtime's {@link HistoryBudget} is spent: an old version keeps alive what later updates replaced,
 * which is estimated as its entry's serialized arguments plus {@value #PATH_BYTES} bytes for the
 * copied path of the persistent structure, plus what the object reports its updates left to the
 * older versions alone ({@link VersionCapturing#takeReplacedBytes}).
 *
 * <p>Dropping a version is never wrong, only slower: a snapshot older than every kept version is
 * rebuilt by replay. The floor decides which versions are worth their memory: a version whose
 * successor was captured at or below the floor is the state as of no address an open transaction
 * reads (every open snapshot is at or above the successor), and a transaction that begins later
 * takes a snapshot at or above every address this view has applied, since those entries were
 * written before it asked the sequencer. So a runtime without open transactions keeps only the
 * newest versions, and its old versions die young instead of surviving collections.
 *
 * <p>Because a version is captured after every applied entry, the version as of any address S at or
 * above the oldest kept one is the one captured at the greatest address at or below S: no update
 * between them touched the object. Serving it costs a lookup and a {@link
 * VersionCapturing#restoreVersion} on a new instance: O(log k) in the number of kept versions, with
 * nothing replayed or copied. Addresses below the oldest kept version are not served here (the view
 * replays them instead).
 *
 * <p>Kept in address order in a ring of arrays that grows as needed (and shrinks once a quarter
 * full): a view applies entries in address order, so capturing is an append at the newest end and
 * dropping the oldest a step of the ring's head, O(1) each; a capture out of order (not expected)
 * is inserted in place. A lookup is a binary search.
 *
 * <p>Not thread-safe: used under its {@link SmrEngine}'s lock.
 */
final class CapturedVersions {
  static final int PATH_BYTES = 256;
  private static final int INITIAL_CAPACITY = 16;

  private final int newest;
  private final HistoryBudget budget;
  private final LongSupplier floor;
  private long bytes;

  // A ring: the i-th oldest kept version is at (head + i) % capacity, for i < size.
  private long[] addresses = new long[0];
  private Object[] versions = new Object[0];
  private long[] sizes = new long[0];
  private int head;
  private int size;

  /**
   * Keeps the {@code newest} versions, older ones while their successor is above {@code floor}
   * (read on each capture), all within {@code budget}; {@code newest} 0 captures nothing.
   */
  CapturedVersions(int newest, HistoryBudget budget, LongSupplier floor) {
    this.newest = newest;
    this.budget = budget;
    this.floor = floor;
  }

  /**
   * Captures the version of {@code live} as of {@code address}, whose update carried {@code
   * argumentBytes} bytes of serialized arguments; drops the oldest versions beyond the bounds.
   */
  void capture(long address, Object live, long argumentBytes) {
    if (newest == 0) {
      return;
    }
    VersionCapturing<?> capturing = (VersionCapturing<?>) live;
    Object version = capturing.captureVersion();
    long cost = argumentBytes + PATH_BYTES + Math.max(0, capturing.takeReplacedBytes());
    int at = insertionPoint(address);
    if (at < size && addressAt(at) == address) {
      int slot = slot(at);
      long added = cost - sizes[slot];
      versions[slot] = version;
      sizes[slot] = cost;
      bytes += added;
      budget.add(added);
    } else {
      insert(at, address, version, cost);
      bytes += cost;
      budget.add(cost);
    }
    while (size > 1 && budget.spent()) {
      dropOldest();
    }
    if (size > newest) {
      long f = floor.getAsLong();
      while (size > newest && addressAt(1) <= f) {
        dropOldest();
      }
    }
    if (addresses.length > INITIAL_CAPACITY && size < addresses.length / 4) {
      // What a long transaction made it keep is gone: the ring gives its slots back.
      resize(addresses.length / 2);
    }
  }

  /** Gives every kept version's bytes back to the budget and forgets them. */
  void release() {
    budget.add(-bytes);
    bytes = 0;
    Arrays.fill(versions, null);
    head = 0;
    size = 0;
  }

  /**
   * Makes {@code target}, a new instance in the class's initial state, hold the version as of
   * {@code snapshot}; false (target untouched) when {@code snapshot} is older than every kept
   * version. The view must have applied every update up to {@code snapshot}.
   */
  @SuppressWarnings("unchecked")
  boolean restoreInto(Object target, long snapshot) {
    int floor = insertionPoint(snapshot + 1) - 1;
    if (floor < 0) {
      return false;
    }
    ((VersionCapturing<Object>) target).restoreVersion(versions[slot(floor)]);
    return true;
  }

  /** How many versions are kept. */
  int size() {
    return size;
  }

  private int slot(int i) {
    int s = head + i;
    return s >= addresses.length ? s - addresses.length : s;
  }

  private long addressAt(int i) {
    return addresses[slot(i)];
  }

  /** The index of the first kept version at or above {@code address} ({@code size} if none). */
  private int insertionPoint(long address) {
    if (size == 0 || addressAt(size - 1) < address) {
      return size;
    }
    int lo = 0;
    int hi = size - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (addressAt(mid) < address) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private void insert(int at, long address, Object version, long cost) {
    if (size == addresses.length) {
      resize(Math.max(INITIAL_CAPACITY, addresses.length * 2));
    }
    for (int i = size; i > at; i--) {
      int to = slot(i);
      int from = slot(i - 1);
      addresses[to] = addresses[from];
      versions[to] = versions[from];
      sizes[to] = sizes[from];
    }
    int s = slot(at);
    addresses[s] = address;
    versions[s] = version;
    sizes[s] = cost;
    size++;
  }

  private void dropOldest() {
    long freed = sizes[head];
    versions[head] = null;
    head = slot(1);
    size--;
    bytes -= freed;
    budget.add(-freed);
  }

  /** Moves the kept versions into a ring of {@code capacity} slots, at least {@code size}. */
  private void resize(int capacity) {
    long[] a = new long[capacity];
    Object[] v = new Object[capacity];
    long[] z = new long[capacity];
    for (int i = 0; i < size; i++) {
      int s = slot(i);
      a[i] = addresses[s];
      v[i] = versions[s];
      z[i] = sizes[s];
    }
    addresses = a;
    versions = v;
    sizes = z;
    head = 0;
  }
}
