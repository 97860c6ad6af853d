package io.vcorfu.logunit.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The index file of a sealed segment: the segment's ops without payloads, so a restart replays them
 * instead of reading the data. Layout: {@code magic:int, version:int, segment:int,
 * segmentLength:long, opCount:int, ops..., crc32c:int} with the CRC over everything before it. Also
 * serves as the growable buffer that collects the active segment's ops.
 */
final class IndexFile {
  private static final int MAGIC = 0x56434958; // "VCIX"
  private static final int VERSION = 2;

  /** The layout before namespaces were named once per file and numbers were varints. */
  private static final int OLD_VERSION = 1;

  private static final int HEADER = 4 + 4 + 4 + 8 + 4;

  private byte[] bytes = new byte[1 << 16];
  private int length = HEADER;
  private int ops;
  private final RecordCodec.Names names = new RecordCodec.Names();

  void add(SegmentRecord op) {
    ByteBuffer body = RecordCodec.body(op, true, names);
    int need = body.position();
    if (length + need + 4 > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + need + 4));
    }
    System.arraycopy(body.array(), 0, bytes, length, need);
    length += need;
    ops++;
  }

  /** The file contents for segment {@code segment} of {@code segmentLength} bytes. */
  byte[] finish(int segment, long segmentLength) {
    ByteBuffer.wrap(bytes, 0, HEADER)
        .putInt(MAGIC)
        .putInt(VERSION)
        .putInt(segment)
        .putLong(segmentLength)
        .putInt(ops);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    byte[] out = Arrays.copyOf(bytes, length + 4);
    ByteBuffer.wrap(out, length, 4).putInt((int) crc.getValue());
    return out;
  }

  /**
   * Replays a stored index file into {@code sink}, or returns false (replaying nothing) when the
   * file is damaged or does not describe {@code segment} at {@code segmentLength} bytes: an entry
   * whose payload would not lie within those bytes makes the file damaged too.
   */
  static boolean replay(
      byte[] file, int segment, long segmentLength, Consumer<SegmentRecord> sink) {
    if (file.length < HEADER + 4) {
      return false;
    }
    CRC32C crc = new CRC32C();
    crc.update(file, 0, file.length - 4);
    ByteBuffer b = ByteBuffer.wrap(file);
    if ((int) crc.getValue() != b.getInt(file.length - 4)) {
      return false;
    }
    if (b.getInt() != MAGIC) {
      return false;
    }
    int version = b.getInt();
    if ((version != VERSION && version != OLD_VERSION)
        || b.getInt() != segment
        || b.getLong() != segmentLength) {
      return false;
    }
    int count = b.getInt();
    b.limit(file.length - 4);
    SegmentRecord[] parsed = new SegmentRecord[Math.max(0, Math.min(count, file.length))];
    RecordCodec.Names read = new RecordCodec.Names();
    try {
      if (count != parsed.length) {
        return false;
      }
      for (int i = 0; i < count; i++) {
        parsed[i] = RecordCodec.readBody(b, true, read, 0);
        if (parsed[i].type == SegmentRecord.ENTRY
            && (parsed[i].payloadPos < 0
                || parsed[i].payloadLen < 0
                || parsed[i].payloadPos > segmentLength - parsed[i].payloadLen)) {
          return false;
        }
      }
    } catch (RuntimeException e) {
      return false;
    }
    if (b.hasRemaining()) {
      return false;
    }
    for (SegmentRecord op : parsed) {
      sink.accept(op);
    }
    return true;
  }
}
