package io.vcorfu.logunit.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Byte layout of segment records and index-file operations.
 *
 * <p>A segment record is a frame: {@code magic:int, length:int, crc:int, body[length]}, where the
 * CRC32C covers the length field and the body. Bodies start with the op type. What is written:
 *
 * <ul>
 *   <li>PACKED_ENTRY (5): flags:byte, global:zigzag, hash:int, n:varint, n × key, len:varint,
 *       payload[len]
 *   <li>SHARED (6): flags:byte, global:zigzag, hash:int, n:varint, n × key, position:long,
 *       len:varint: the keys name the payload stored at {@code position} (segment and offset, see
 *       {@link SegmentPosition}) by an earlier record, which is not stored again
 *   <li>PACKED_COMMIT (7): n:varint, n × key
 *   <li>MARKS (3): msb, lsb, trimMark, maxAddress, lastGlobal, maxGlobal: long
 *   <li>ANCHORED_MARKS (8): MARKS's fields, then the chain anchor (32 bytes; see {@link
 *       SegmentRecord#anchor})
 *   <li>PINNED_MARKS (9): MARKS's fields, anchored:byte (0 or 1), the anchor if anchored,
 *       pinsVersion:long, n:int, n × (pinMsb, pinLsb, at): long (see {@link SegmentRecord#pins})
 *   <li>FORCED (4): forcedTo: long (segments only, never in index files; see {@link
 *       SegmentRecord#FORCED})
 * </ul>
 *
 * In PACKED_ENTRY and SHARED bodies, flag {@link #DIGESTED} says the entry's SHA-256 digest (32
 * bytes) follows the hash. A key is {@code ns:varint address:varint}, where {@code ns} 0 is the
 * log's namespace (0, 0), 1 is followed by the namespace's msb and lsb (longs), and in index files
 * {@code ns - 2} names the n-th namespace spelled out earlier in the same file. Varints are
 * unsigned LEB128; zigzag maps -1 to 1. Index-file ops are bodies too, with a PACKED_ENTRY's
 * payload replaced by {@code offset:varint, len:varint}. Older stores wrote ENTRY (1: flags:byte,
 * global:long, hash:int, n:int, n × (msb, lsb, address):long, len:int, payload) and COMMIT (2:
 * n:int, n × (msb, lsb, address)), with fixed-size payload positions in index files; both are still
 * read.
 */
final class RecordCodec {
  static final int MAGIC = 0x56435247; // "VCRG"
  static final int FRAME_HEADER = 12;

  static final byte OLD_ENTRY = 1;
  static final byte OLD_COMMIT = 2;
  static final byte PACKED_ENTRY = 5;
  static final byte SHARED = 6;
  static final byte PACKED_COMMIT = 7;
  static final byte ANCHORED_MARKS = 8;
  static final byte PINNED_MARKS = 9;

  /**
   * Set in the flags byte of a PACKED_ENTRY or SHARED body when the entry's digest (32 bytes)
   * follows its hash; never set in the index's flags.
   */
  static final byte DIGESTED = 4;

  private RecordCodec() {}

  /**
   * The namespaces an index file spelled out so far, in order: a key of a namespace seen before
   * costs a byte or two. One per file, for writing or for reading.
   */
  static final class Names {
    private final Map<Long, Map<Long, Integer>> ids = new HashMap<>();
    private final List<long[]> byId = new ArrayList<>();

    int idOf(long msb, long lsb) {
      return ids.getOrDefault(msb, Map.of()).getOrDefault(lsb, -1);
    }

    void add(long msb, long lsb) {
      ids.computeIfAbsent(msb, x -> new HashMap<>()).put(lsb, byId.size());
      byId.add(new long[] {msb, lsb});
    }

    long[] get(int id) {
      if (id < 0 || id >= byId.size()) {
        throw new IllegalArgumentException("namespace reference " + id + " is not defined");
      }
      return byId.get(id);
    }
  }

  /** The whole frame of {@code op}, ready to append, naming namespaces without a dictionary. */
  static byte[] frame(SegmentRecord op) {
    return frame(op, null);
  }

  /**
   * The whole frame of {@code op}, ready to append to a segment whose namespaces so far are {@code
   * names} (updated with any it spells out); null for none.
   */
  static byte[] frame(SegmentRecord op, Names names) {
    // An entry's payload (most of its bytes) is copied once, straight into the frame.
    boolean entry = op.type == SegmentRecord.ENTRY;
    ByteBuffer body = body(op, false, names, !entry);
    int headLen = body.position();
    int bodyLen = headLen + (entry ? op.payload.length : 0);
    byte[] frame = new byte[FRAME_HEADER + bodyLen];
    ByteBuffer b = ByteBuffer.wrap(frame);
    b.putInt(MAGIC).putInt(bodyLen).putInt(0);
    b.put(body.array(), 0, headLen);
    if (entry) {
      b.put(op.payload);
    }
    b.putInt(8, crc(frame, 4, bodyLen));
    return frame;
  }

  /** Offset of the payload of an ENTRY op inside {@code frame}: the payload ends the body. */
  static int payloadOffsetInFrame(SegmentRecord op, byte[] frame) {
    return frame.length - op.payloadLen;
  }

  static int crc(byte[] frame, int lengthFieldOffset, int bodyLen) {
    CRC32C c = new CRC32C();
    c.update(frame, lengthFieldOffset, 4);
    c.update(frame, lengthFieldOffset + 8, bodyLen);
    return (int) c.getValue();
  }

  /** An upper bound of the frame length of {@code op} in a segment. */
  static int maxFrameLength(SegmentRecord op) {
    return FRAME_HEADER + bound(op, false);
  }

  private static int bound(SegmentRecord op, boolean index) {
    int keys = op.keys.length / 3;
    return switch (op.type) {
      case SegmentRecord.ENTRY -> 72 + keys * 40 + (index ? 20 : op.payloadLen);
      case SegmentRecord.SHARED -> 92 + keys * 40;
      case SegmentRecord.COMMIT -> 10 + keys * 40;
      case SegmentRecord.MARKS -> 1 + 6 * 8 + 33 + (op.pins == null ? 0 : 12 + op.pins.length * 8);
      case SegmentRecord.FORCED -> 1 + 8;
      default -> throw new IllegalStateException("unknown op type " + op.type);
    };
  }

  /**
   * The body of {@code op}, written from position 0 of the returned buffer up to its position: as a
   * segment record, or as an index-file op ({@code index}), with the {@code names} of its file
   * (null: every namespace spelled out).
   */
  static ByteBuffer body(SegmentRecord op, boolean index, Names names) {
    return body(op, index, names, true);
  }

  /**
   * {@link #body(SegmentRecord, boolean, Names)}, where a segment ENTRY's payload bytes (which end
   * the body) are left out unless {@code withPayload}: its length is written, the caller appends
   * it.
   */
  private static ByteBuffer body(
      SegmentRecord op, boolean index, Names names, boolean withPayload) {
    boolean payloadAfter = !index && !withPayload && op.type == SegmentRecord.ENTRY;
    ByteBuffer b = ByteBuffer.allocate(bound(op, index) - (payloadAfter ? op.payload.length : 0));
    switch (op.type) {
      case SegmentRecord.ENTRY -> {
        b.put(PACKED_ENTRY);
        putFlagsGlobalHash(b, op);
        putKeys(b, op.keys, names);
        if (index) {
          putVarint(b, op.payloadPos);
          putVarint(b, op.payloadLen);
        } else {
          putVarint(b, op.payload.length);
          if (!payloadAfter) {
            b.put(op.payload);
          }
        }
      }
      case SegmentRecord.SHARED -> {
        b.put(SHARED);
        putFlagsGlobalHash(b, op);
        putKeys(b, op.keys, names);
        b.putLong(op.payloadPos);
        putVarint(b, op.payloadLen);
      }
      case SegmentRecord.COMMIT -> {
        b.put(PACKED_COMMIT);
        putKeys(b, op.keys, names);
      }
      case SegmentRecord.MARKS -> {
        byte kind =
            op.pins != null
                ? PINNED_MARKS
                : op.anchor == null ? SegmentRecord.MARKS : ANCHORED_MARKS;
        b.put(kind)
            .putLong(op.keys[0])
            .putLong(op.keys[1])
            .putLong(op.trimMark)
            .putLong(op.maxAddress)
            .putLong(op.lastGlobal)
            .putLong(op.maxGlobal);
        if (kind == PINNED_MARKS) {
          b.put((byte) (op.anchor == null ? 0 : 1));
        }
        if (op.anchor != null) {
          b.put(op.anchor);
        }
        if (kind == PINNED_MARKS) {
          b.putLong(op.pinsVersion).putInt(op.pins.length / 3);
          for (long v : op.pins) {
            b.putLong(v);
          }
        }
      }
      case SegmentRecord.FORCED -> b.put(SegmentRecord.FORCED).putLong(op.forcedTo);
      default -> throw new IllegalStateException("unknown op type " + op.type);
    }
    return b;
  }

  /**
   * Reads one body. In a segment ({@code index == false}, {@code names} null) the payload is not
   * copied: its position is {@code bodyFilePos} plus its offset in the body. An index file's ops
   * are read with the {@code names} of that file.
   */
  static SegmentRecord readBody(ByteBuffer b, boolean index, Names names, long bodyFilePos) {
    int start = b.position();
    byte type = b.get();
    switch (type) {
      case OLD_ENTRY -> {
        byte flags = b.get();
        long global = b.getLong();
        int hash = b.getInt();
        long[] keys = getFixedKeys(b);
        if (index) {
          long pos = b.getLong();
          int len = b.getInt();
          return SegmentRecord.entryAt(flags, global, hash, keys, pos, len);
        }
        int len = b.getInt();
        return payloadAt(b, start, bodyFilePos, flags, global, hash, keys, len);
      }
      case PACKED_ENTRY -> {
        byte written = b.get();
        byte flags = (byte) (written & ~DIGESTED);
        long global = getZigzag(b);
        int hash = b.getInt();
        byte[] digest = getDigest(b, written);
        long[] keys = getKeys(b, names);
        if (index) {
          long pos = getVarint(b);
          int len = lengthOf(getVarint(b));
          return SegmentRecord.entryAt(flags, global, hash, keys, pos, len).digest(digest);
        }
        int len = lengthOf(getVarint(b));
        return payloadAt(b, start, bodyFilePos, flags, global, hash, keys, len).digest(digest);
      }
      case SHARED -> {
        byte written = b.get();
        byte flags = (byte) (written & ~DIGESTED);
        long global = getZigzag(b);
        int hash = b.getInt();
        byte[] digest = getDigest(b, written);
        long[] keys = getKeys(b, names);
        long position = b.getLong();
        int len = lengthOf(getVarint(b));
        if (position < 0) {
          throw new IllegalArgumentException("shared payload position " + position);
        }
        return SegmentRecord.shared(flags, global, hash, keys, position, len).digest(digest);
      }
      case OLD_COMMIT -> {
        return SegmentRecord.commit(getFixedKeys(b));
      }
      case PACKED_COMMIT -> {
        return SegmentRecord.commit(getKeys(b, names));
      }
      case SegmentRecord.MARKS -> {
        return SegmentRecord.marks(
            b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong());
      }
      case ANCHORED_MARKS -> {
        SegmentRecord marks =
            SegmentRecord.marks(
                b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong());
        byte[] anchor = new byte[32];
        b.get(anchor);
        return marks.anchor(anchor);
      }
      case PINNED_MARKS -> {
        SegmentRecord marks =
            SegmentRecord.marks(
                b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong());
        if (b.get() != 0) {
          byte[] anchor = new byte[32];
          b.get(anchor);
          marks.anchor(anchor);
        }
        long version = b.getLong();
        int n = b.getInt();
        if (n < 0 || n > b.remaining() / 24) {
          throw new IllegalArgumentException("a marks record's pin count " + n + " overruns it");
        }
        long[] pins = new long[n * 3];
        for (int i = 0; i < pins.length; i++) {
          pins[i] = b.getLong();
        }
        return marks.pins(version, pins);
      }
      case SegmentRecord.FORCED -> {
        return SegmentRecord.forced(b.getLong());
      }
      default -> throw new IllegalArgumentException("unknown record type " + type);
    }
  }

  /** Flags (with {@link #DIGESTED} when the op has a digest), global, hash, then the digest. */
  private static void putFlagsGlobalHash(ByteBuffer b, SegmentRecord op) {
    b.put((byte) (op.digest == null ? op.flags : op.flags | DIGESTED));
    putZigzag(b, op.global);
    b.putInt(op.hash);
    if (op.digest != null) {
      b.put(op.digest);
    }
  }

  private static byte[] getDigest(ByteBuffer b, byte written) {
    if ((written & DIGESTED) == 0) {
      return null;
    }
    byte[] digest = new byte[32];
    b.get(digest);
    return digest;
  }

  private static SegmentRecord payloadAt(
      ByteBuffer b,
      int start,
      long bodyFilePos,
      byte flags,
      long global,
      int hash,
      long[] keys,
      int len) {
    if (len > b.remaining()) {
      throw new IllegalArgumentException("payload length " + len + " exceeds the record");
    }
    long pos = bodyFilePos + (b.position() - start);
    b.position(b.position() + len);
    return SegmentRecord.entryAt(flags, global, hash, keys, pos, len);
  }

  private static int lengthOf(long len) {
    if (len < 0 || len > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("length " + len);
    }
    return (int) len;
  }

  private static void putKeys(ByteBuffer b, long[] keys, Names names) {
    putVarint(b, keys.length / 3);
    for (int i = 0; i < keys.length; i += 3) {
      long msb = keys[i];
      long lsb = keys[i + 1];
      int id = names == null ? -1 : names.idOf(msb, lsb);
      if (msb == 0 && lsb == 0) {
        putVarint(b, 0);
      } else if (id >= 0) {
        putVarint(b, id + 2L);
      } else {
        putVarint(b, 1);
        b.putLong(msb).putLong(lsb);
        if (names != null) {
          names.add(msb, lsb);
        }
      }
      putVarint(b, keys[i + 2]);
    }
  }

  private static long[] getKeys(ByteBuffer b, Names names) {
    long n = getVarint(b);
    if (n < 0 || n > b.remaining() / 2) {
      throw new IllegalArgumentException("key count " + n + " exceeds the record");
    }
    long[] keys = new long[(int) n * 3];
    for (int i = 0; i < keys.length; i += 3) {
      long ns = getVarint(b);
      if (ns == 1) {
        keys[i] = b.getLong();
        keys[i + 1] = b.getLong();
        if (names != null) {
          names.add(keys[i], keys[i + 1]);
        }
      } else if (ns >= 2) {
        if (names == null) {
          throw new IllegalArgumentException("a namespace reference without its file's names");
        }
        long[] id = names.get((int) Math.min(Integer.MAX_VALUE, ns - 2));
        keys[i] = id[0];
        keys[i + 1] = id[1];
      } else if (ns != 0) {
        throw new IllegalArgumentException("namespace tag " + ns);
      }
      keys[i + 2] = getVarint(b);
    }
    return keys;
  }

  private static long[] getFixedKeys(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0 || n > b.remaining() / 24) {
      throw new IllegalArgumentException("key count " + n + " exceeds the record");
    }
    long[] keys = new long[n * 3];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = b.getLong();
    }
    return keys;
  }

  static void putVarint(ByteBuffer b, long v) {
    while ((v & ~0x7FL) != 0) {
      b.put((byte) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    b.put((byte) v);
  }

  static long getVarint(ByteBuffer b) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte x = b.get();
      v |= (long) (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("a varint longer than ten bytes");
  }

  private static void putZigzag(ByteBuffer b, long v) {
    putVarint(b, (v << 1) ^ (v >> 63));
  }

  private static long getZigzag(ByteBuffer b) {
    long u = getVarint(b);
    return (u >>> 1) ^ -(u & 1);
  }
}
