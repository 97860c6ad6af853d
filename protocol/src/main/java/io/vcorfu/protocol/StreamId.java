package io.vcorfu.protocol;

import io.vcorfu.protocol.proto.StreamIdMsg;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The 128-bit identity of a stream.
 *
 * <p>A stream named by a human-readable string gets its id from one documented hash: the RFC 4122
 * name-based UUID (version 3) of the name's UTF-8 bytes, i.e. {@code
 * UUID.nameUUIDFromBytes(name.getBytes(UTF_8))}. Every client in every language derives the same id
 * from the same name.
 */
public record StreamId(long msb, long lsb) implements Comparable<StreamId> {

  /**
   * The stream of the name directory (which names clients gave their streams and objects; see
   * {@code io.vcorfu.client.NameDirectory}). Its id is not a name-based UUID (its version nibble is
   * 0, theirs 3), so no name reaches it; stream replicas refuse every trim of it.
   */
  public static final StreamId NAME_DIRECTORY = new StreamId(0, 0x6e616d6573L);

  // equals and hashCode are written out, as Endpoint's are (no invokedynamic bootstrap at first
  // use).
  @Override
  public boolean equals(Object o) {
    return o instanceof StreamId s && msb == s.msb && lsb == s.lsb;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(msb) * 31 + Long.hashCode(lsb);
  }

  /** The id of the stream with this human-readable name. */
  public static StreamId of(String name) {
    UUID uuid = UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
    return new StreamId(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
  }

  /** Parses the canonical UUID text form. */
  public static StreamId parse(String uuid) {
    UUID u = UUID.fromString(uuid);
    return new StreamId(u.getMostSignificantBits(), u.getLeastSignificantBits());
  }

  public static StreamId fromMsg(StreamIdMsg msg) {
    return new StreamId(msg.getMsb(), msg.getLsb());
  }

  public StreamIdMsg toMsg() {
    return StreamIdMsg.newBuilder().setMsb(msb).setLsb(lsb).build();
  }

  public UUID toUuid() {
    return new UUID(msb, lsb);
  }

  /** A non-negative value spread over all 128 bits, for placement (stream id -> stream chain). */
  public int placementHash() {
    long h = msb ^ Long.rotateLeft(lsb, 29);
    h ^= (h >>> 33);
    h *= 0xff51afd7ed558ccdL;
    h ^= (h >>> 33);
    return (int) (h & 0x7fffffff);
  }

  @Override
  public int compareTo(StreamId o) {
    int c = Long.compareUnsigned(msb, o.msb);
    return c != 0 ? c : Long.compareUnsigned(lsb, o.lsb);
  }

  @Override
  public String toString() {
    return toUuid().toString();
  }
}
