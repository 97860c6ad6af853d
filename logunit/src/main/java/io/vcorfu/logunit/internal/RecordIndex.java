package io.vcorfu.logunit.internal;

import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The record index of a storage engine: per namespace (the log, or one stream), which address holds
 * which record (its flags, global address, content hash and where its bytes are), the trim mark,
 * the highest address and the last DATA record's global address; plus the highest global address of
 * any DATA record. Changed only by applying {@link SegmentRecord}s, live or replayed by recovery,
 * so a restart rebuilds exactly what was there.
 *
 * <p>Not thread-safe: guarded by the owning {@link StorageEngine}'s monitor.
 */
final class RecordIndex {
  private final boolean durable;
  private final SegmentRefs segments;
  private final Map<StreamId, NamespaceIndex> namespaces = new HashMap<>();
  private long maxGlobal = -1;
  private NamespaceIndex lastNamespace;

  /** An empty index; in memory mode ({@code !durable}) it keeps the records' bytes itself. */
  RecordIndex(boolean durable, SegmentRefs segments) {
    this.durable = durable;
    this.segments = segments;
  }

  /** The record at {@code address} of {@code ns}, or null when there is none (or it is trimmed). */
  IndexedRecord lookup(StreamId ns, long address) {
    NamespaceIndex n = namespaces.get(ns);
    int s = n == null ? -1 : n.find(address);
    if (s < 0) {
      return null;
    }
    return new IndexedRecord(
        address,
        n.flags[s],
        n.global[s],
        n.hash[s],
        n.pos[s],
        n.len[s],
        durable ? null : n.payload[s],
        n.digest(s),
        n.crc[s]);
  }

  /**
   * The addresses of {@code ns}'s uncommitted DATA records at or above its trim mark, ascending:
   * one pass over its records' flags, with no lookup or record made per address.
   */
  long[] uncommittedData(StreamId ns) {
    NamespaceIndex n = namespaces.get(ns);
    if (n == null) {
      return new long[0];
    }
    long[] out = new long[8];
    int count = 0;
    byte notData = StorageEngine.HOLE | StorageEngine.COMMITTED;
    for (int s = 0; s < n.size(); s++) {
      if ((n.flags[s] & notData) == 0 && n.address[s] >= n.trimMark) {
        if (count == out.length) {
          out = java.util.Arrays.copyOf(out, count * 2);
        }
        out[count++] = n.address[s];
      }
    }
    out = java.util.Arrays.copyOf(out, count);
    java.util.Arrays.sort(out);
    return out;
  }

  /**
   * How many addresses of {@code [from, to]} of {@code ns} at or above its trim mark that {@code
   * counted} accepts hold no committed record; no record is made per address.
   */
  long missing(StreamId ns, long from, long to, java.util.function.LongPredicate counted) {
    NamespaceIndex n = namespaces.get(ns);
    long missing = 0;
    for (long a = Math.max(from, n == null ? 0 : n.trimMark); a <= to; a++) {
      if (!counted.test(a)) {
        continue;
      }
      int s = n == null ? -1 : n.find(a);
      if (s < 0 || (n.flags[s] & StorageEngine.COMMITTED) == 0) {
        missing++;
      }
    }
    return missing;
  }

  /** True once anything (a record or a trim) was ever stored for {@code ns}. */
  boolean knows(StreamId ns) {
    return namespaces.containsKey(ns);
  }

  long trimMark(StreamId ns) {
    NamespaceIndex n = namespaces.get(ns);
    return n == null ? 0 : n.trimMark;
  }

  /** Highest address ever stored in {@code ns} (trimming does not lower it), or -1. */
  long maxAddress(StreamId ns) {
    NamespaceIndex n = namespaces.get(ns);
    return n == null ? -1 : n.maxAddress;
  }

  /** See {@link StorageEngine#lastGlobal}. */
  long lastGlobal(StreamId ns) {
    NamespaceIndex n = namespaces.get(ns);
    if (n == null) {
      return -1;
    }
    if (n.lastDataStale) {
      int s = n.lastDataSlot(n.lastDataAddress, StorageEngine.HOLE);
      n.lastDataAddress = s < 0 ? -1 : n.address[s];
      n.lastDataGlobal = s < 0 ? -1 : n.global[s];
      n.lastDataStale = false;
    }
    return n.lastDataAddress >= 0 ? n.lastDataGlobal : n.floorGlobal;
  }

  /**
   * Global address of the last DATA record of {@code n} below {@code limit}, as trim records it.
   */
  static long lastGlobalBelow(NamespaceIndex n, long limit) {
    if (!n.lastDataStale && n.lastDataAddress >= 0 && n.lastDataAddress < limit) {
      return n.lastDataGlobal;
    }
    int s = n.lastDataSlot(limit, StorageEngine.HOLE);
    return s < 0 ? n.floorGlobal : n.global[s];
  }

  /** Highest global address of any DATA record ever stored, or -1. */
  long maxGlobal() {
    return maxGlobal;
  }

  List<StreamId> namespaces() {
    return new ArrayList<>(namespaces.keySet());
  }

  /** A copy of every namespace's index (for repeating trim marks in a new segment). */
  Collection<NamespaceIndex> all() {
    return new ArrayList<>(namespaces.values());
  }

  /**
   * The lowest global address the log keeps for the namespaces {@code streams} accepts that were
   * trimmed: above the last DATA record each one trimmed away; {@link Long#MAX_VALUE} when none was
   * trimmed. Counts them into {@code counts} ({streams, trimmed streams}).
   */
  long neededFrom(Predicate<StreamId> streams, long[] counts) {
    long needed = Long.MAX_VALUE;
    for (NamespaceIndex n : all()) {
      if (!streams.test(n.id)) {
        continue;
      }
      counts[0]++;
      if (n.trimMark > 0) {
        counts[1]++;
        needed = Math.min(needed, n.floorGlobal + 1);
      }
    }
    return needed;
  }

  /** Applies one record, live or replayed, whose frame lies in {@code segment}. */
  void apply(SegmentRecord op, int segment) {
    switch (op.type) {
      case SegmentRecord.ENTRY, SegmentRecord.SHARED -> applyEntry(op, segment);
      case SegmentRecord.COMMIT -> applyCommit(op, segment);
      case SegmentRecord.MARKS -> applyMarks(op);
      default -> throw new IllegalStateException("unknown op type " + op.type);
    }
  }

  private void applyEntry(SegmentRecord op, int segment) {
    long[] k = op.keys;
    int streamKeys = streamKeys(k);
    for (int i = 0; i < k.length; i += 3) {
      NamespaceIndex n = namespace(k[i], k[i + 1]);
      long address = k[i + 2];
      if (address < n.trimMark) {
        continue;
      }
      int s = n.find(address);
      if (s >= 0) {
        if (address <= n.headAt && !sameDecision(n, s, op)) {
          // A position the cached chain head covers now holds something else: compute it anew.
          // (Compaction moves committed records with their digest, which changes nothing.)
          n.head = null;
          n.headAt = -1;
        }
        segments.release(n, s);
      } else {
        s = n.insert(address);
      }
      boolean shared = op.type == SegmentRecord.SHARED;
      n.pos[s] = shared ? op.payloadPos : SegmentPosition.of(segment, op.payloadPos);
      n.len[s] = op.payloadLen;
      n.flags[s] = op.flags;
      n.global[s] = op.global;
      n.hash[s] = op.hash;
      n.commitSegment[s] = -1;
      n.keySegment[s] = -1;
      if (!durable) {
        n.payload[s] = op.payload;
      }
      n.digest(s, (op.flags & StorageEngine.HOLE) == 0 ? op.digest : null);
      n.crc[s] = op.crc;
      int payloadSegment = SegmentPosition.segment(n.pos[s]);
      // The digest stored beside the payload is live as long as the payload is.
      int digestLen = op.digest == null ? 0 : 32;
      n.charge[s] = shared ? 0 : charge(op, streamKeys, k[i], k[i + 1], digestLen);
      segments.retain(payloadSegment, n.charge[s]);
      if (payloadSegment != segment) {
        // The record that names this slot lies elsewhere: it must outlive the slot too.
        n.keySegment[s] = segment;
        segments.retain(segment, 0);
      }
      n.maxAddress = Math.max(n.maxAddress, address);
      if ((op.flags & StorageEngine.HOLE) == 0) {
        if (address >= n.lastDataAddress) {
          n.lastDataAddress = address;
          n.lastDataGlobal = op.global;
          n.lastDataStale = false;
        }
      } else if (address == n.lastDataAddress) {
        // The last DATA record became a hole (an abort): the last one is now further down.
        n.lastDataStale = true;
      }
    }
    if ((op.flags & StorageEngine.HOLE) == 0) {
      maxGlobal = Math.max(maxGlobal, op.global);
    }
  }

  /**
   * The bytes of {@code op}'s payload (and digest) that its key in namespace ({@code msb}, {@code
   * lsb}) keeps live, for the estimate of {@link SegmentRefs}: the payload split over the streams'
   * keys, the log's key charging nothing beside them, or all of it when the log's is the only key.
   * The log's retention trims its keys within seconds while the streams keep theirs for as long as
   * their objects need them; charging the log's key a share made every payload written to the log
   * and a stream count half dead once the log let go, and compaction then counted those segments
   * exactly, over and over, to find them live. The shares never add up to more than the payload, so
   * the estimate still errs low.
   */
  private static int charge(SegmentRecord op, int streamKeys, long msb, long lsb, int digestLen) {
    int bytes = op.payloadLen + digestLen;
    if (streamKeys == 0) {
      return bytes / Math.max(1, op.keyCount());
    }
    return msb == 0 && lsb == 0 ? 0 : bytes / streamKeys;
  }

  /** How many of {@code keys} (msb, lsb, address triples) name a stream, not the log. */
  private static int streamKeys(long[] keys) {
    int n = 0;
    for (int j = 0; j < keys.length; j += 3) {
      if (keys[j] != 0 || keys[j + 1] != 0) {
        n++;
      }
    }
    return n;
  }

  /** True when slot {@code s} holds the same decided content {@code op} stores again. */
  private static boolean sameDecision(NamespaceIndex n, int s, SegmentRecord op) {
    if (n.flags[s] != op.flags || (op.flags & StorageEngine.COMMITTED) == 0) {
      return false;
    }
    if ((op.flags & StorageEngine.HOLE) != 0) {
      return true;
    }
    byte[] held = n.digest(s);
    return held != null && op.digest != null && java.util.Arrays.equals(held, op.digest);
  }

  private void applyCommit(SegmentRecord op, int segment) {
    long[] k = op.keys;
    for (int i = 0; i < k.length; i += 3) {
      NamespaceIndex n = namespaces.get(new StreamId(k[i], k[i + 1]));
      int s = n == null ? -1 : n.find(k[i + 2]);
      if (s < 0 || (n.flags[s] & StorageEngine.COMMITTED) != 0) {
        continue;
      }
      n.flags[s] |= StorageEngine.COMMITTED;
      if (durable && SegmentPosition.segment(n.pos[s]) != segment) {
        n.commitSegment[s] = segment;
        segments.retain(segment, 0);
      }
    }
  }

  private void applyMarks(SegmentRecord op) {
    NamespaceIndex n = namespace(new StreamId(op.keys[0], op.keys[1]));
    n.maxAddress = Math.max(n.maxAddress, op.maxAddress);
    maxGlobal = Math.max(maxGlobal, op.maxGlobal);
    if (op.pins != null && op.pinsVersion > n.pinsVersion) {
      n.pins = op.pins;
      n.pinsVersion = op.pinsVersion;
    }
    if (op.trimMark > n.trimMark) {
      n.trimMark = op.trimMark;
      n.floorGlobal = op.lastGlobal;
      n.anchor = op.anchor;
      if (n.headAt < op.trimMark - 1) {
        n.head = null;
        n.headAt = -1;
      }
      n.removeBelow(op.trimMark, s -> segments.release(n, s));
      if (!n.lastDataStale && n.lastDataAddress < op.trimMark) {
        // The last DATA record, if any, was trimmed away: floorGlobal now names it.
        n.lastDataAddress = -1;
        n.lastDataGlobal = -1;
      }
    }
  }

  /** The index of {@code id}, created empty when absent. */
  NamespaceIndex namespace(StreamId id) {
    return namespaces.computeIfAbsent(id, i -> new NamespaceIndex(i, !durable));
  }

  /** Like {@link #namespace(StreamId)}, remembering the last one (replays hit it nearly always). */
  NamespaceIndex namespace(long msb, long lsb) {
    NamespaceIndex n = lastNamespace;
    if (n == null || n.id.msb() != msb || n.id.lsb() != lsb) {
      n = namespace(new StreamId(msb, lsb));
      lastNamespace = n;
    }
    return n;
  }
}
