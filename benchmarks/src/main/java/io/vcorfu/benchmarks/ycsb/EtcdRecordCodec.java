package io.vcorfu.benchmarks.ycsb;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The value encoding of one YCSB record stored under one etcd key: a version byte, the field count,
 * then per field its UTF-8 name and its value bytes, each preceded by its length. Counts and
 * lengths are unsigned LEB128 varints, so a record of ten 100-byte fields costs about 1 + 1 + 10 *
 * (1 + 6 + 1 + 100) bytes. Field order is preserved. Stateless and thread-safe.
 */
public final class EtcdRecordCodec {
  /** The only format version written and accepted. */
  public static final int VERSION = 1;

  private EtcdRecordCodec() {}

  /** Encodes the fields in iteration order. */
  public static byte[] encode(Map<String, byte[]> fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 + fields.size() * 32);
    out.write(VERSION);
    writeVarint(out, fields.size());
    for (Map.Entry<String, byte[]> field : fields.entrySet()) {
      byte[] name = field.getKey().getBytes(StandardCharsets.UTF_8);
      writeVarint(out, name.length);
      out.write(name, 0, name.length);
      byte[] value = field.getValue();
      writeVarint(out, value.length);
      out.write(value, 0, value.length);
    }
    return out.toByteArray();
  }

  /**
   * Decodes a record written by {@link #encode}, in the order it was written.
   *
   * @throws IllegalArgumentException if the bytes are not a complete record of this format
   */
  public static LinkedHashMap<String, byte[]> decode(byte[] bytes) {
    Reader in = new Reader(bytes);
    int version = in.readByte();
    if (version != VERSION) {
      throw new IllegalArgumentException(
          "The etcd record has format version "
              + version
              + " but only version "
              + VERSION
              + " is understood.");
    }
    int count = in.readLength();
    LinkedHashMap<String, byte[]> fields = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String name = new String(in.readBytes(in.readLength()), StandardCharsets.UTF_8);
      fields.put(name, in.readBytes(in.readLength()));
    }
    if (in.position != bytes.length) {
      throw new IllegalArgumentException(
          "The etcd record has " + (bytes.length - in.position) + " bytes after its last field.");
    }
    return fields;
  }

  private static void writeVarint(ByteArrayOutputStream out, int value) {
    int v = value;
    while ((v & ~0x7F) != 0) {
      out.write((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out.write(v);
  }

  private static final class Reader {
    private final byte[] bytes;
    private int position;

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    int readByte() {
      if (position >= bytes.length) {
        throw new IllegalArgumentException("The etcd record ends in the middle of a field.");
      }
      return bytes[position++] & 0xFF;
    }

    int readLength() {
      long value = 0;
      for (int shift = 0; shift < 35; shift += 7) {
        int b = readByte();
        value |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          if (value > bytes.length - position) {
            throw new IllegalArgumentException(
                "The etcd record declares a length of "
                    + value
                    + " but only "
                    + (bytes.length - position)
                    + " bytes remain.");
          }
          return (int) value;
        }
      }
      throw new IllegalArgumentException("The etcd record has a length longer than five bytes.");
    }

    byte[] readBytes(int length) {
      byte[] out = new byte[length];
      System.arraycopy(bytes, position, out, 0, length);
      position += length;
      return out;
    }
  }
}
