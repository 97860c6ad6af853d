package io.vcorfu.logunit.internal;

import io.vcorfu.protocol.StreamId;
import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * The records of one namespace, kept compact: an open-addressing map from address to slot, and one
 * primitive array per field indexed by slot (about 69 bytes per record at worst, no boxing).
 * Payload bytes live here only in memory mode; durable mode keeps their segment position instead.
 *
 * <p>Not thread-safe: guarded by the owning {@link StorageEngine}'s monitor.
 */
final class NamespaceIndex {
  private static final long FREE = Long.MIN_VALUE;

  final StreamId id;
  long trimMark;
  long maxAddress = -1;

  /**
   * Global address of the last DATA record below {@link #trimMark} (the records the index no longer
   * holds), as the trim that dropped them recorded it; -1 when there is none.
   */
  long floorGlobal = -1;

  /**
   * The pins held on this namespace, flattened {@code (pinMsb, pinLsb, at)} (see {@link
   * StreamPins}); null when it never had any. {@link #pinsVersion} counts their changes.
   */
  long[] pins;

  long pinsVersion;

  /**
   * Address and global address of the highest-addressed DATA record in the index, -1 when there is
   * none. When {@link #lastDataStale} is set the DATA record there was replaced by a hole and the
   * true one is somewhere below {@link #lastDataAddress}: recompute with {@link #lastDataSlot}.
   */
  long lastDataAddress = -1;

  long lastDataGlobal = -1;
  boolean lastDataStale;

  /**
   * The writer sequence number of the last record that touched this namespace (0: none since open).
   */
  long lastSeq;

  private long[] tableKeys;
  private int[] tableSlots;
  private int size;

  long[] address;
  long[] pos;
  int[] len;
  byte[] flags;
  long[] global;
  int[] hash;

  /** Segment of the commit record when it differs from the entry's, else -1. */
  int[] commitSegment;

  /**
   * Segment of the record that indexed this slot when it differs from the payload's (a shared
   * payload, see {@link SegmentRecord#SHARED}), else -1.
   */
  int[] keySegment;

  /** The payload bytes this slot counts live in its payload's segment (see SegmentRefs). */
  int[] charge;

  /** The CRC32C of the slot's payload as received or checked against its digest; 0: not known. */
  int[] crc;

  byte[][] payload;

  /**
   * The entries' digests, 32 bytes per slot from {@code slot * 32} (see {@code ChainDigests}), all
   * zero where a slot has none (holes, and records stored before digests were); null until the
   * first digest.
   */
  byte[] digests;

  /**
   * The chain head just below {@link #trimMark} (see {@code ChainDigests}); null when the trim mark
   * is 0 (the chain starts at the stream's seed) or when the anchor is not known (this replica did
   * not hold every position below the mark decided when it trimmed).
   */
  byte[] anchor;

  /** A chain head this index computed: the head at {@link #headAt}; null when none is cached. */
  byte[] head;

  long headAt = -1;

  private final boolean inMemory;

  NamespaceIndex(StreamId id, boolean inMemory) {
    this.id = id;
    this.inMemory = inMemory;
    allocate(16);
  }

  private void allocate(int capacity) {
    tableKeys = new long[Integer.highestOneBit(Math.max(16, capacity * 2 - 1)) * 2];
    Arrays.fill(tableKeys, FREE);
    tableSlots = new int[tableKeys.length];
    address = new long[capacity];
    pos = new long[capacity];
    len = new int[capacity];
    flags = new byte[capacity];
    global = new long[capacity];
    hash = new int[capacity];
    commitSegment = new int[capacity];
    keySegment = new int[capacity];
    charge = new int[capacity];
    crc = new int[capacity];
    payload = inMemory ? new byte[capacity][] : null;
    digests = null;
    size = 0;
  }

  int size() {
    return size;
  }

  /** The slot of the highest-addressed DATA record with an address below {@code limit}, or -1. */
  int lastDataSlot(long limit, byte holeFlag) {
    int best = -1;
    for (int s = 0; s < size; s++) {
      if ((flags[s] & holeFlag) == 0
          && address[s] < limit
          && (best < 0 || address[s] > address[best])) {
        best = s;
      }
    }
    return best;
  }

  /** The slot holding {@code addr}, or -1. */
  int find(long addr) {
    int mask = tableKeys.length - 1;
    for (int i = start(addr, mask); ; i = (i + 1) & mask) {
      long k = tableKeys[i];
      if (k == addr) {
        return tableSlots[i];
      }
      if (k == FREE) {
        return -1;
      }
    }
  }

  /** A new slot for an address not present yet. */
  int insert(long addr) {
    if (size == address.length) {
      grow(size * 2);
    }
    int slot = size++;
    address[slot] = addr;
    commitSegment[slot] = -1;
    keySegment[slot] = -1;
    crc[slot] = 0;
    place(addr, slot);
    return slot;
  }

  private void place(long addr, int slot) {
    int mask = tableKeys.length - 1;
    int i = start(addr, mask);
    while (tableKeys[i] != FREE) {
      i = (i + 1) & mask;
    }
    tableKeys[i] = addr;
    tableSlots[i] = slot;
  }

  private void grow(int capacity) {
    address = Arrays.copyOf(address, capacity);
    pos = Arrays.copyOf(pos, capacity);
    len = Arrays.copyOf(len, capacity);
    flags = Arrays.copyOf(flags, capacity);
    global = Arrays.copyOf(global, capacity);
    hash = Arrays.copyOf(hash, capacity);
    commitSegment = Arrays.copyOf(commitSegment, capacity);
    keySegment = Arrays.copyOf(keySegment, capacity);
    charge = Arrays.copyOf(charge, capacity);
    crc = Arrays.copyOf(crc, capacity);
    if (inMemory) {
      payload = Arrays.copyOf(payload, capacity);
    }
    if (digests != null) {
      digests = Arrays.copyOf(digests, capacity * 32);
    }
    if (capacity * 2 > tableKeys.length) {
      rehash(Integer.highestOneBit(capacity * 2 - 1) * 2);
    }
  }

  private void rehash(int tableSize) {
    tableKeys = new long[tableSize];
    Arrays.fill(tableKeys, FREE);
    tableSlots = new int[tableSize];
    for (int s = 0; s < size; s++) {
      place(address[s], s);
    }
  }

  /**
   * Drops every record with an address below {@code before}, calling {@code dropped} with each
   * dropped slot first (while its fields are still readable), then compacts the arrays.
   */
  void removeBelow(long before, IntConsumer dropped) {
    int kept = 0;
    for (int s = 0; s < size; s++) {
      if (address[s] < before) {
        dropped.accept(s);
        continue;
      }
      if (kept != s) {
        address[kept] = address[s];
        pos[kept] = pos[s];
        len[kept] = len[s];
        flags[kept] = flags[s];
        global[kept] = global[s];
        hash[kept] = hash[s];
        commitSegment[kept] = commitSegment[s];
        keySegment[kept] = keySegment[s];
        charge[kept] = charge[s];
        crc[kept] = crc[s];
        if (inMemory) {
          payload[kept] = payload[s];
        }
        if (digests != null) {
          System.arraycopy(digests, s * 32, digests, kept * 32, 32);
        }
      }
      kept++;
    }
    if (inMemory) {
      Arrays.fill(payload, kept, size, null);
    }
    size = kept;
    int capacity = Math.max(16, Integer.highestOneBit(Math.max(1, kept)) * 2);
    if (capacity < address.length) {
      address = Arrays.copyOf(address, capacity);
      pos = Arrays.copyOf(pos, capacity);
      len = Arrays.copyOf(len, capacity);
      flags = Arrays.copyOf(flags, capacity);
      global = Arrays.copyOf(global, capacity);
      hash = Arrays.copyOf(hash, capacity);
      commitSegment = Arrays.copyOf(commitSegment, capacity);
      keySegment = Arrays.copyOf(keySegment, capacity);
      charge = Arrays.copyOf(charge, capacity);
      crc = Arrays.copyOf(crc, capacity);
      if (inMemory) {
        payload = Arrays.copyOf(payload, capacity);
      }
      if (digests != null) {
        digests = Arrays.copyOf(digests, capacity * 32);
      }
    }
    if (digests != null) {
      Arrays.fill(digests, kept * 32, digests.length, (byte) 0);
    }
    rehash(Integer.highestOneBit(Math.max(16, address.length * 2 - 1)) * 2);
  }

  /** Sets slot {@code s}'s digest; null clears it. */
  void digest(int s, byte[] digest) {
    if (digest == null) {
      if (digests != null) {
        Arrays.fill(digests, s * 32, s * 32 + 32, (byte) 0);
      }
      return;
    }
    if (digests == null) {
      digests = new byte[address.length * 32];
    }
    System.arraycopy(digest, 0, digests, s * 32, 32);
  }

  /** Slot {@code s}'s digest, or null when it has none. */
  byte[] digest(int s) {
    if (digests == null) {
      return null;
    }
    for (int i = s * 32; i < s * 32 + 32; i++) {
      if (digests[i] != 0) {
        return Arrays.copyOfRange(digests, s * 32, s * 32 + 32);
      }
    }
    return null;
  }

  /**
   * Where {@code addr}'s probe starts: runs of 16 consecutive addresses keep their order in one
   * block of the table, and blocks are spread by a hash of the rest of the address. A namespace's
   * addresses mostly come one after another, so a record's lookup after the previous one's finds
   * the cache lines already loaded instead of one random line of a table of millions each; strides
   * of 16 and more still spread over the whole table. (Tables hold at least 32 keys.)
   */
  private static int start(long addr, int mask) {
    long h = (addr >>> 4) * 0x9E3779B97F4A7C15L;
    return (((int) (h ^ (h >>> 32)) << 4) | (int) (addr & 15)) & mask;
  }
}
