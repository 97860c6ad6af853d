package io.vcorfu.logunit.internal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Byte layout of segment records and index-file operations.
 *
 * <p>A segment record is a frame: {@code magic:int, length:int, crc:int, body[length]}, where the
 * CRC32C covers the length field and the body. Bodies start with the op type:
 *
 * <ul>
 *   <li>ENTRY: flags:byte, global:long, hash:int, n:int, n × (msb, lsb, address):long, len:int,
 *       payload[len]
 *   <li>COMMIT: n:int, n × (msb, lsb, address)
 *   <li>MARKS: msb, lsb, trimMark, maxAddress, lastGlobal, maxGlobal: long
 *   <li>FORCED: forcedTo: long (segments only, never in index files; see {@link
 *       SegmentRecord#FORCED})
 * </ul>
 *
 * Index-file ops are bodies too, with an ENTRY's payload replaced by {@code pos:long, len:int}.
 */
final class RecordCodec {
  static final int MAGIC = 0x56435247; // "VCRG"
  static final int FRAME_HEADER = 12;

  private RecordCodec() {}

  /** The whole frame of {@code op}, ready to append. */
  static byte[] frame(SegmentRecord op) {
    int bodyLen = bodyLength(op, false);
    ByteBuffer b = ByteBuffer.allocate(FRAME_HEADER + bodyLen);
    b.putInt(MAGIC).putInt(bodyLen).putInt(0);
    writeBody(b, op, false);
    b.putInt(8, crc(b.array(), 4, bodyLen));
    return b.array();
  }

  /** Offset of the payload of an ENTRY op inside its frame. */
  static int payloadOffsetInFrame(SegmentRecord op) {
    return FRAME_HEADER + 1 + 1 + 8 + 4 + 4 + 24 * op.keyCount() + 4;
  }

  static int crc(byte[] frame, int lengthFieldOffset, int bodyLen) {
    CRC32C c = new CRC32C();
    c.update(frame, lengthFieldOffset, 4);
    c.update(frame, lengthFieldOffset + 8, bodyLen);
    return (int) c.getValue();
  }

  static int bodyLength(SegmentRecord op, boolean index) {
    return switch (op.type) {
      case SegmentRecord.ENTRY ->
          1 + 1 + 8 + 4 + 4 + 24 * op.keyCount() + (index ? 12 : 4 + op.payloadLen);
      case SegmentRecord.COMMIT -> 1 + 4 + 24 * op.keyCount();
      case SegmentRecord.MARKS -> 1 + 6 * 8;
      case SegmentRecord.FORCED -> 1 + 8;
      default -> throw new IllegalStateException("unknown op type " + op.type);
    };
  }

  static void writeBody(ByteBuffer b, SegmentRecord op, boolean index) {
    b.put(op.type);
    switch (op.type) {
      case SegmentRecord.ENTRY -> {
        b.put(op.flags).putLong(op.global).putInt(op.hash);
        putKeys(b, op.keys);
        if (index) {
          b.putLong(op.payloadPos).putInt(op.payloadLen);
        } else {
          b.putInt(op.payload.length).put(op.payload);
        }
      }
      case SegmentRecord.COMMIT -> putKeys(b, op.keys);
      case SegmentRecord.MARKS ->
          b.putLong(op.keys[0])
              .putLong(op.keys[1])
              .putLong(op.trimMark)
              .putLong(op.maxAddress)
              .putLong(op.lastGlobal)
              .putLong(op.maxGlobal);
      case SegmentRecord.FORCED -> b.putLong(op.forcedTo);
      default -> throw new IllegalStateException("unknown op type " + op.type);
    }
  }

  /**
   * Reads one body. In a segment ({@code index == false}) the payload is not copied: its position
   * is {@code bodyFilePos} plus its offset in the body.
   */
  static SegmentRecord readBody(ByteBuffer b, boolean index, long bodyFilePos) {
    int start = b.position();
    byte type = b.get();
    switch (type) {
      case SegmentRecord.ENTRY -> {
        byte flags = b.get();
        long global = b.getLong();
        int hash = b.getInt();
        long[] keys = getKeys(b);
        if (index) {
          long pos = b.getLong();
          int len = b.getInt();
          return SegmentRecord.entryAt(flags, global, hash, keys, pos, len);
        }
        int len = b.getInt();
        if (len < 0 || len > b.remaining()) {
          throw new IllegalArgumentException("payload length " + len + " exceeds the record");
        }
        long pos = bodyFilePos + (b.position() - start);
        b.position(b.position() + len);
        return SegmentRecord.entryAt(flags, global, hash, keys, pos, len);
      }
      case SegmentRecord.COMMIT -> {
        return SegmentRecord.commit(getKeys(b));
      }
      case SegmentRecord.MARKS -> {
        return SegmentRecord.marks(
            b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong());
      }
      case SegmentRecord.FORCED -> {
        return SegmentRecord.forced(b.getLong());
      }
      default -> throw new IllegalArgumentException("unknown record type " + type);
    }
  }

  private static void putKeys(ByteBuffer b, long[] keys) {
    b.putInt(keys.length / 3);
    for (long k : keys) {
      b.putLong(k);
    }
  }

  private static long[] getKeys(ByteBuffer b) {
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
}
