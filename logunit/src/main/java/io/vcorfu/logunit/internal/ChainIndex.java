package io.vcorfu.logunit.internal;

import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.StreamId;
import java.util.Arrays;

/**
 * A namespace's hash chain (see {@code ChainDigests}) as its index holds it: where it can be
 * computed from (the seed, the anchor below the trim mark, or a head computed earlier) and the
 * digests of the decided positions after that. Heads are computed outside the engine's monitor from
 * a {@link Span} taken under it.
 *
 * <p>Invariant: the chain runs only over decided positions (committed records: DATA with their
 * digest, holes with {@link ChainDigests#HOLE}); it stops at the first position that holds nothing,
 * is undecided or lacks a digest, so a head never covers anything a later decision could change. A
 * committed record is never replaced by different content, so a cached head stays true.
 *
 * <p>Not thread-safe: guarded by the owning {@link StorageEngine}'s monitor.
 */
public final class ChainIndex {
  /** Positions one span covers at most; a longer chain is computed span by span. */
  static final int MAX_SPAN = 1 << 20;

  private ChainIndex() {}

  /** Why a span ends before its limit. */
  public enum Stop {
    /** It reached the limit, or the highest position held. */
    END,
    /** The next position holds no record here. */
    MISSING,
    /** The next position holds an entry not decided yet (uncommitted). */
    UNDECIDED,
    /** The next position's record was stored before replicas kept digests. */
    NO_DIGEST
  }

  /**
   * The head {@code start} at position {@code from} (null when the anchor is not known), then the
   * digests of the {@code count} decided positions {@code from + 1 ...} (32 bytes each in {@code
   * digests}), ending for {@code stop} at position {@code from + count + 1}.
   */
  public record Span(
      StreamId ns, long trimMark, long from, byte[] start, byte[] digests, int count, Stop stop) {
    /** The position of the last head this span reaches (its {@code from} when it has no digest). */
    public long last() {
      return from + count;
    }

    /** The head at {@link #last}, or null when the start is not known. */
    public byte[] fold() {
      return foldTo(last());
    }

    /** The head at {@code at} (between {@code from} and {@link #last}), or null when unknown. */
    public byte[] foldTo(long at) {
      if (start == null || at < from || at > last()) {
        return null;
      }
      byte[] h = start;
      for (int i = 0; i < at - from; i++) {
        h = ChainDigests.link(h, from + 1 + i, digests, i * ChainDigests.LENGTH);
      }
      return h;
    }

    /** The digest of position {@code p} (in {@code (from, last]}). */
    public byte[] digestAt(long p) {
      int i = (int) (p - from - 1);
      return Arrays.copyOfRange(digests, i * ChainDigests.LENGTH, (i + 1) * ChainDigests.LENGTH);
    }
  }

  /** The span of {@code n} up to {@code limit}, from the closest known head at or below it. */
  static Span span(NamespaceIndex n, long limit, boolean fromAnchor) {
    long from;
    byte[] start;
    if (!fromAnchor && n.head != null && n.headAt >= n.trimMark - 1 && n.headAt <= limit) {
      from = n.headAt;
      start = n.head;
    } else {
      from = n.trimMark - 1;
      start = n.trimMark == 0 ? ChainDigests.seed(n.id) : n.anchor;
    }
    long end = Math.min(limit, n.maxAddress);
    int count = 0;
    byte[] digests = new byte[(int) Math.max(0, Math.min(end - from, 64)) * 32];
    Stop stop = Stop.END;
    for (long p = from + 1; p <= end && count < MAX_SPAN; p++) {
      if ((count + 1) * 32 > digests.length) {
        long grown = Math.max(64L, digests.length / 32 * 2L);
        digests =
            Arrays.copyOf(digests, (int) Math.min(Math.min(MAX_SPAN, end - from), grown) * 32);
      }
      int s = n.find(p);
      if (s < 0) {
        stop = Stop.MISSING;
        break;
      }
      if ((n.flags[s] & StorageEngine.COMMITTED) == 0) {
        stop = Stop.UNDECIDED;
        break;
      }
      if ((n.flags[s] & StorageEngine.HOLE) != 0) {
        System.arraycopy(ChainDigests.HOLE, 0, digests, count * 32, 32);
      } else if (n.digests == null || isZero(n.digests, s * 32)) {
        stop = Stop.NO_DIGEST;
        break;
      } else {
        System.arraycopy(n.digests, s * 32, digests, count * 32, 32);
      }
      count++;
    }
    return new Span(n.id, n.trimMark, from, start, digests, count, stop);
  }

  /**
   * The chain head at {@code before - 1} for a trim of {@code n} below {@code before}, or null when
   * it cannot be known (the anchor below the current mark is not known, or a position below {@code
   * before} is not decided here).
   */
  static byte[] anchorBelow(NamespaceIndex n, long before) {
    if (n.id.msb() == 0 && n.id.lsb() == 0) {
      // The global log keeps no anchor: it is trimmed every second, a log replica may hold only
      // some of its addresses, and its entries are checked one by one (see tamper-evidence.md).
      return null;
    }
    if (n.trimMark > 0 && n.anchor == null) {
      return null; // not known below the current mark, so not above it either
    }
    while (true) {
      Span s = span(n, before - 1, false);
      byte[] head = s.fold();
      if (head == null || s.last() == before - 1) {
        return s.last() == before - 1 ? head : null;
      }
      if (s.stop() != Stop.END || s.count() == 0) {
        return null;
      }
      cache(n, s.last(), head, n.trimMark);
    }
  }

  /**
   * Under {@code engine}'s monitor: {@code ns}'s chain anchor below its trim mark, empty when it
   * was never trimmed or the anchor is not known (what a rebuilt replica takes with the mark).
   */
  public static com.google.protobuf.ByteString anchorBytes(StorageEngine engine, StreamId ns) {
    long mark = engine.trimMark(ns);
    Span span = mark > 0 ? span(engine, ns, mark - 1, true) : null;
    return span == null || span.start() == null
        ? com.google.protobuf.ByteString.EMPTY
        : com.google.protobuf.ByteString.copyFrom(span.start());
  }

  /**
   * Where {@code ns}'s chain in {@code engine} can be computed from, and the digests of the decided
   * positions after it up to {@code limit}, from the anchor with {@code fromAnchor}, else from the
   * closest head computed before; null when the engine never held {@code ns}.
   */
  public static Span span(StorageEngine engine, StreamId ns, long limit, boolean fromAnchor) {
    synchronized (engine) {
      RecordIndex index = engine.index();
      return index.knows(ns) ? span(index.namespace(ns), limit, fromAnchor) : null;
    }
  }

  /** Keeps {@code head}, the chain head at {@code at} of {@code ns}, for the next span. */
  public static void cache(StorageEngine engine, StreamId ns, long at, byte[] head, long trim) {
    synchronized (engine) {
      if (engine.index().knows(ns)) {
        cache(engine.index().namespace(ns), at, head, trim);
      }
    }
  }

  /**
   * Keeps {@code crcs[i]}, the CRC32C of bytes found to match their digest, for the record at
   * {@code addresses[i]} of {@code ns} while its payload is still at {@code positions[i]}.
   */
  public static void rememberCrcs(
      StorageEngine engine,
      StreamId ns,
      long[] addresses,
      long[] positions,
      int[] crcs,
      int count) {
    synchronized (engine) {
      if (!engine.index().knows(ns)) {
        return;
      }
      NamespaceIndex n = engine.index().namespace(ns);
      for (int i = 0; i < count; i++) {
        int s = n.find(addresses[i]);
        if (s >= 0 && n.pos[s] == positions[i]) {
          n.crc[s] = crcs[i];
        }
      }
    }
  }

  /** Keeps {@code head} at {@code at} for later spans, if {@code n} was not trimmed since. */
  static void cache(NamespaceIndex n, long at, byte[] head, long trimMark) {
    if (head != null && n.trimMark == trimMark && at >= n.trimMark - 1 && at > n.headAt) {
      n.head = head;
      n.headAt = at;
    }
  }

  private static boolean isZero(byte[] b, int offset) {
    for (int i = offset; i < offset + 32; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
