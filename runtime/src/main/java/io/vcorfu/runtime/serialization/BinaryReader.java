package io.vcorfu.runtime.serialization;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads what {@link BinaryWriter} wrote. Every read is bounds-checked: truncated or malformed input
 * fails with {@link SerializationException}, never with an index error or an oversized allocation.
 * Not thread-safe.
 */
public final class BinaryReader {
  private final DefaultSerializer values;
  private final byte[] buf;
  private int pos;
  int depth;

  public BinaryReader(byte[] buf, DefaultSerializer values) {
    this.buf = buf;
    this.values = values;
  }

  public BinaryReader(byte[] buf) {
    this(buf, null);
  }

  public int remaining() {
    return buf.length - pos;
  }

  private void need(long n) {
    if (n < 0 || n > remaining()) {
      throw new SerializationException(
          "the payload is truncated: "
              + n
              + " more bytes needed at offset "
              + pos
              + " of "
              + buf.length);
    }
  }

  public int readByte() {
    need(1);
    return buf[pos++] & 0xFF;
  }

  public long readVarLong() {
    long result = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      int b = readByte();
      result |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return result;
      }
    }
    throw new SerializationException("a varint in the payload is longer than ten bytes");
  }

  public long readSignedVarLong() {
    long v = readVarLong();
    return (v >>> 1) ^ -(v & 1);
  }

  public long readFixedLong() {
    need(8);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (buf[pos++] & 0xFF);
    }
    return v;
  }

  /**
   * A length that must fit in what is left of the payload (each counted item takes a byte or more).
   */
  public int readLength() {
    long n = readVarLong();
    need(n);
    return (int) n;
  }

  public byte[] readBytes() {
    int n = readLength();
    byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
    pos += n;
    return out;
  }

  public String readString() {
    int n = readLength();
    String s = new String(buf, pos, n, StandardCharsets.UTF_8);
    pos += n;
    return s;
  }

  /** A nested value in the default serializer's tagged format. */
  public Object readValue() {
    if (values == null) {
      throw new IllegalStateException("this reader has no value serializer");
    }
    return values.decode(this);
  }

  /** Fails unless every byte was consumed. */
  public void expectEnd() {
    if (remaining() != 0) {
      throw new SerializationException(remaining() + " unexpected bytes follow the payload");
    }
  }
}
