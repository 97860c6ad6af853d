package io.vcorfu.logunit.internal;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * The global log's prefix trim as a log replica runs it: only past addresses it holds decided, and
 * keeping the holes it passes.
 *
 * <p>Why both. A writer that dies after its entry's stream copy landed and before its log copy did
 * leaves the log's slot empty; a reader of the global log fills it with a hole and returns it. Were
 * that hole forgotten by the trim, a later reader of the stream deciding the dangling copy would
 * count the trimmed log copy as held and commit the entry: a global address read as a hole would
 * later read as data. Kept below the mark, the hole refuses the copy's log write, and its decision
 * aborts it. And an address still empty or uncommitted is the write or repair of a token that is
 * not over: trimmed, it could no longer be decided, and a stream slot waiting on it could not be
 * read again.
 *
 * <p>Invariant: every address of the log below its trim mark was decided on this replica (held
 * committed, as data or a hole) when the mark passed it, or was not this replica's to hold; and
 * every committed hole the mark passed is still held, as a record of the reserved namespace {@link
 * #NAMESPACE}, which reads answer as a committed hole, which refuses writes, and which rebuilds
 * copy. Holes are rare (a token taken and never written, a write whose writer died), so they cost
 * little to keep.
 */
public final class KeptHoles {
  /** The namespace the global log uses inside the storage engine. */
  public static final StreamId LOG = new StreamId(0, 0);

  /** The namespace of the holes kept below the log's trim mark (no stream id has this value). */
  public static final StreamId NAMESPACE = new StreamId(0, 1);

  /** Most undecided addresses one trim names. */
  public static final int MAX_UNDECIDED = 1024;

  /** Most addresses one trim looks at: the rest waits for the next. */
  static final long MAX_SPAN = 1L << 20;

  private KeptHoles() {}

  /**
   * What a trim did: the mark in force afterwards, and the lowest undecided addresses it found
   * (ascending, at most {@link #MAX_UNDECIDED}; {@code more} when there were more).
   */
  public record Trim(long mark, long[] undecided, boolean more) {}

  /** True for the namespaces the log reserves ({@link #LOG}, {@link #NAMESPACE}). */
  public static boolean reserved(StreamId ns) {
    return ns.msb() == 0 && (ns.lsb() == 0 || ns.lsb() == 1);
  }

  /**
   * Under the engine's monitor: the hole kept at {@code address} of {@code ns} below its trim mark,
   * or null (none is kept there, or {@code ns} is not the log).
   */
  public static IndexedRecord below(StorageEngine engine, StreamId ns, long address) {
    return LOG.equals(ns) ? engine.lookup(NAMESPACE, address) : null;
  }

  /**
   * Under the engine's monitor: trims the log below {@code before} as far as this replica holds
   * every address decided that {@code owned} accepts, keeping the committed holes it passes; with
   * {@code dryRun} trims nothing and only looks. The caller has checked {@code before} against the
   * log's tail.
   */
  public static Trim trim(StorageEngine engine, long before, LongPredicate owned, boolean dryRun) {
    RecordIndex index = engine.index();
    long old = index.trimMark(LOG);
    long to = Math.min(before, old + MAX_SPAN);
    NamespaceIndex n = index.knows(LOG) ? index.namespace(LOG) : null;
    long first = to;
    long[] undecided = new long[8];
    int count = 0;
    boolean more = false;
    long[] holes = new long[8];
    int holeCount = 0;
    for (long a = old; a < to; a++) {
      int s = n == null ? -1 : n.find(a);
      boolean decided = s >= 0 && (n.flags[s] & StorageEngine.COMMITTED) != 0;
      if (!decided) {
        if (!owned.test(a)) {
          continue; // another chain's: this replica holds nothing there to decide
        }
        first = Math.min(first, a);
        if (count == MAX_UNDECIDED) {
          more = true;
        } else {
          undecided = grown(undecided, count);
          undecided[count++] = a;
        }
      } else if (first == to && (n.flags[s] & StorageEngine.HOLE) != 0) {
        holes = grown(holes, holeCount);
        holes[holeCount++] = a;
      }
    }
    undecided = Arrays.copyOf(undecided, count);
    if (dryRun || n == null || first <= old) {
      return new Trim(old, undecided, more);
    }
    long mark = StreamPins.clamp(n, first);
    for (int i = 0; i < holeCount && holes[i] < mark; i++) {
      keep(engine, holes[i]);
    }
    return new Trim(engine.trim(LOG, mark), undecided, more);
  }

  /** Under the engine's monitor: how many holes are kept. */
  public static long count(StorageEngine engine) {
    RecordIndex index = engine.index();
    return index.knows(NAMESPACE) ? index.namespace(NAMESPACE).size() : 0;
  }

  /** Under the engine's monitor: every address a hole is kept at, ascending. */
  public static long[] list(StorageEngine engine) {
    RecordIndex index = engine.index();
    if (!index.knows(NAMESPACE)) {
      return new long[0];
    }
    NamespaceIndex n = index.namespace(NAMESPACE);
    long[] out = Arrays.copyOf(n.address, n.size());
    Arrays.sort(out);
    return out;
  }

  /**
   * Under the engine's monitor: keeps holes at {@code addresses} below the log's trim mark (a
   * replica rebuilding the log's chains takes those its chain keeps); returns how many were new.
   */
  public static int adopt(StorageEngine engine, long[] addresses) {
    int added = 0;
    long mark = engine.trimMark(LOG);
    for (long a : addresses) {
      if (a >= 0 && a < mark && engine.lookup(NAMESPACE, a) == null) {
        keep(engine, a);
        added++;
      }
    }
    return added;
  }

  private static void keep(StorageEngine engine, long address) {
    engine.put(
        EntryRecords.key(NAMESPACE, address),
        address,
        0,
        (byte) (StorageEngine.HOLE | StorageEngine.COMMITTED),
        holeAt(address),
        null);
  }

  /** The bytes of the log's hole at {@code address}, as a fill stores it. */
  public static byte[] holeAt(long address) {
    return LogEntryMsg.newBuilder()
        .setGlobalAddress(address)
        .setKind(EntryKind.HOLE)
        .build()
        .toByteArray();
  }

  private static long[] grown(long[] a, int count) {
    return count < a.length ? a : Arrays.copyOf(a, a.length * 2);
  }
}
