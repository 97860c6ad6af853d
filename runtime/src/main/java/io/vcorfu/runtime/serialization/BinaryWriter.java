package io.vcorfu.runtime.serialization;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer with the primitives of vcorfu's compact binary format: unsigned LEB128
 * varints, zig-zag signed varints, big-endian fixed-width longs, and length-prefixed byte strings
 * and UTF-8 strings. Not thread-safe.
 */
public final class BinaryWriter {
  private final DefaultSerializer values;
  private byte[] buf = new byte[64];
  private int size;

  /** A writer whose {@link #writeValue} encodes nested values with {@code values} (may be null). */
  public BinaryWriter(DefaultSerializer values) {
    this.values = values;
  }

  public BinaryWriter() {
    this(null);
  }

  private void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }

  public BinaryWriter writeByte(int b) {
    ensure(1);
    buf[size++] = (byte) b;
    return this;
  }

  /** Unsigned LEB128 varint (negative values take ten bytes). */
  public BinaryWriter writeVarLong(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[size++] = (byte) v;
    return this;
  }

  /** Zig-zag encoded signed varint. */
  public BinaryWriter writeSignedVarLong(long v) {
    return writeVarLong((v << 1) ^ (v >> 63));
  }

  /** Eight bytes, big-endian. */
  public BinaryWriter writeFixedLong(long v) {
    ensure(8);
    for (int i = 7; i >= 0; i--) {
      buf[size++] = (byte) (v >>> (i * 8));
    }
    return this;
  }

  /** Varint length followed by the bytes. */
  public BinaryWriter writeBytes(byte[] b) {
    writeVarLong(b.length);
    return writeRaw(b);
  }

  /** The bytes, without a length. */
  public BinaryWriter writeRaw(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, buf, size, b.length);
    size += b.length;
    return this;
  }

  /** {@code len} bytes of {@code b} from {@code off}, without a length. */
  BinaryWriter writeRaw(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, buf, size, len);
    size += len;
    return this;
  }

  /** Forgets what was written, keeping the buffer for reuse. */
  void reset() {
    size = 0;
  }

  /** How large a buffer this writer holds. */
  int capacity() {
    return buf.length;
  }

  /** How many bytes are written. */
  int size() {
    return size;
  }

  /**
   * The buffer the first {@link #size} bytes are written in (no copy; later writes may move it).
   */
  byte[] buffer() {
    return buf;
  }

  /** Varint length of the UTF-8 encoding followed by it. */
  public BinaryWriter writeString(String s) {
    return writeBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  /** A nested value in the default serializer's tagged format. */
  public BinaryWriter writeValue(Object value) {
    if (values == null) {
      throw new IllegalStateException("this writer has no value serializer");
    }
    values.encode(value, this, 0);
    return this;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }
}
