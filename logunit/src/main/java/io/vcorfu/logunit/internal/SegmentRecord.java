package io.vcorfu.logunit.internal;

/**
 * One change to the index, as written to a segment (with its payload) or to an index file (with the
 * payload's position instead). Keys are flattened triples {@code (msb, lsb, address)}.
 */
final class SegmentRecord {
  static final byte ENTRY = 1;
  static final byte COMMIT = 2;

  /**
   * Per-namespace marks: trim mark, highest address, global address of the last DATA record below
   * the trim mark (-1 when none), engine max global.
   */
  static final byte MARKS = 3;

  /**
   * "Every byte of this segment before {@code forcedTo} was forced to disk before this record was
   * written." Never indexed: start-up uses it to tell a torn tail from corruption. A readable one
   * is true whether or not it was itself forced, since it is written only after that force.
   */
  static final byte FORCED = 4;

  /**
   * An entry whose payload an earlier record stored already: its keys index the bytes at {@link
   * #payloadPos}, a whole {@link SegmentPosition} (segment and offset), which may lie in an earlier
   * segment than the record itself.
   */
  static final byte SHARED = 6;

  final byte type;
  final long[] keys;
  // ENTRY
  final byte flags;
  final long global;
  final int hash;
  final byte[] payload;
  long payloadPos;
  int payloadLen;
  // MARKS (namespace in keys[0..1])
  final long trimMark;
  final long maxAddress;
  final long lastGlobal;
  final long maxGlobal;
  // FORCED
  final long forcedTo;

  /**
   * ENTRY and SHARED of DATA: the SHA-256 digest of the entry the replica computed when it stored
   * it (see {@code ChainDigests}); null for holes and for records written before digests were.
   */
  byte[] digest;

  /**
   * In memory only, never written: the CRC32C of the payload of a live ENTRY or SHARED, computed
   * from the bytes the replica received (0: not known, as for every record replayed on open).
   */
  int crc;

  /**
   * MARKS: the chain head just below the trim mark (see {@code ChainDigests}); null when the
   * replica did not hold every position below the mark decided when it trimmed.
   */
  byte[] anchor;

  /**
   * MARKS: the namespace's pins, flattened {@code (pinMsb, pinLsb, at)} (see {@link StreamPins}),
   * which replace those held when {@link #pinsVersion} is newer; null when the record says nothing
   * of pins (records written before pins were).
   */
  long[] pins;

  long pinsVersion;

  private SegmentRecord(
      byte type,
      long[] keys,
      byte flags,
      long global,
      int hash,
      byte[] payload,
      long trimMark,
      long maxAddress,
      long lastGlobal,
      long maxGlobal) {
    this(type, keys, flags, global, hash, payload, trimMark, maxAddress, lastGlobal, maxGlobal, 0);
  }

  private SegmentRecord(
      byte type,
      long[] keys,
      byte flags,
      long global,
      int hash,
      byte[] payload,
      long trimMark,
      long maxAddress,
      long lastGlobal,
      long maxGlobal,
      long forcedTo) {
    this.type = type;
    this.keys = keys;
    this.flags = flags;
    this.global = global;
    this.hash = hash;
    this.payload = payload;
    this.payloadLen = payload == null ? 0 : payload.length;
    this.trimMark = trimMark;
    this.maxAddress = maxAddress;
    this.lastGlobal = lastGlobal;
    this.maxGlobal = maxGlobal;
    this.forcedTo = forcedTo;
  }

  static SegmentRecord entry(byte flags, long global, int hash, long[] keys, byte[] payload) {
    return new SegmentRecord(ENTRY, keys, flags, global, hash, payload, 0, 0, 0, 0);
  }

  /** This record with {@code digest} (see {@link #digest}); returns this. */
  SegmentRecord digest(byte[] digest) {
    this.digest = digest;
    return this;
  }

  /** This record with {@code crc} (see {@link #crc}); returns this. */
  SegmentRecord crc(int crc) {
    this.crc = crc;
    return this;
  }

  /** This MARKS record with {@code anchor} (see {@link #anchor}); returns this. */
  SegmentRecord anchor(byte[] anchor) {
    this.anchor = anchor;
    return this;
  }

  /** This MARKS record with the pin set {@code pins} of version {@code version}; returns this. */
  SegmentRecord pins(long version, long[] pins) {
    this.pinsVersion = version;
    this.pins = pins;
    return this;
  }

  /** An entry restored from an index file: payload in the segment at {@code pos}. */
  static SegmentRecord entryAt(byte flags, long global, int hash, long[] keys, long pos, int len) {
    SegmentRecord op = new SegmentRecord(ENTRY, keys, flags, global, hash, null, 0, 0, 0, 0);
    op.payloadPos = pos;
    op.payloadLen = len;
    return op;
  }

  /** A SHARED record: {@code keys} index the {@code len} bytes at segment position {@code pos}. */
  static SegmentRecord shared(byte flags, long global, int hash, long[] keys, long pos, int len) {
    SegmentRecord op = new SegmentRecord(SHARED, keys, flags, global, hash, null, 0, 0, 0, 0);
    op.payloadPos = pos;
    op.payloadLen = len;
    return op;
  }

  static SegmentRecord commit(long[] keys) {
    return new SegmentRecord(COMMIT, keys, (byte) 0, 0, 0, null, 0, 0, 0, 0);
  }

  static SegmentRecord marks(
      long msb, long lsb, long trimMark, long maxAddress, long lastGlobal, long maxGlobal) {
    return new SegmentRecord(
        MARKS,
        new long[] {msb, lsb, 0},
        (byte) 0,
        0,
        0,
        null,
        trimMark,
        maxAddress,
        lastGlobal,
        maxGlobal);
  }

  /**
   * A MARKS record of what {@code n} holds now (trim mark, highest address, floor, anchor, pins):
   * what a roll repeats in the next segment, and what a change of pins writes with the new set.
   */
  static SegmentRecord marksOf(NamespaceIndex n, long maxGlobal) {
    SegmentRecord marks =
        marks(n.id.msb(), n.id.lsb(), n.trimMark, n.maxAddress, n.floorGlobal, maxGlobal)
            .anchor(n.anchor);
    return n.pins == null ? marks : marks.pins(n.pinsVersion, n.pins);
  }

  /** A FORCED record: the segment is forced up to byte {@code forcedTo}. */
  static SegmentRecord forced(long forcedTo) {
    return new SegmentRecord(FORCED, new long[0], (byte) 0, 0, 0, null, 0, 0, 0, 0, forcedTo);
  }

  int keyCount() {
    return keys.length / 3;
  }
}
