package io.vcorfu.protocol;

/**
 * A stream's chain head at a position (see {@link ChainDigests}): what a client pins to check later
 * that positions 0 to {@code position} of the stream are unchanged. Its text form, {@code
 * STREAM@POSITION:HASH} (the stream's name, or its UUID when the name is not known; the hash in 64
 * hex digits), is what {@code vcorfu log head} prints and {@code vcorfu log verify --pin} takes.
 *
 * @param stream the stream
 * @param position the stream address the head covers up to (inclusive); -1 before the first entry
 * @param hash the head, 32 bytes
 */
public record ChainHead(StreamId stream, long position, byte[] hash) {
  public ChainHead {
    if (hash == null || hash.length != ChainDigests.LENGTH) {
      throw new IllegalArgumentException("a chain head is 32 bytes");
    }
    hash = hash.clone();
  }

  @Override
  public byte[] hash() {
    return hash.clone();
  }

  /**
   * The head written as {@link #toString}; IllegalArgumentException saying what is wrong when
   * {@code text} is not {@code STREAM@POSITION:HASH}.
   */
  public static ChainHead parse(String text) {
    int at = text == null ? -1 : text.lastIndexOf('@');
    int colon = at < 0 ? -1 : text.indexOf(':', at);
    if (at <= 0 || colon < 0) {
      throw new IllegalArgumentException(
          "a pinned head is STREAM@POSITION:HASH, as vcorfu log head prints it");
    }
    String name = text.substring(0, at);
    long position;
    try {
      position = Long.parseLong(text.substring(at + 1, colon));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "a pinned head's position is a stream address, not '"
              + text.substring(at + 1, colon)
              + "'");
    }
    if (position < -1) {
      throw new IllegalArgumentException("a pinned head's position is -1 or more");
    }
    StreamId stream;
    try {
      stream = StreamId.parse(name);
    } catch (IllegalArgumentException notUuid) {
      stream = StreamId.of(name);
    }
    return new ChainHead(stream, position, ChainDigests.parseHex(text.substring(colon + 1)));
  }

  @Override
  public String toString() {
    String name = stream.name() != null ? stream.name() : stream.toString();
    return name + "@" + position + ":" + ChainDigests.hex(hash);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChainHead h
        && stream.equals(h.stream)
        && position == h.position
        && java.util.Arrays.equals(hash, h.hash);
  }

  @Override
  public int hashCode() {
    return stream.hashCode() * 31 + Long.hashCode(position);
  }
}
