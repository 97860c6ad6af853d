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
 *
 * <p>An id made from a name remembers the name ({@link #name}) and sends it with the id on the
 * wire, so that a node authorizing requests by stream name can check it against the id (a hash
 * cannot be reversed, so a name that hashes to the id is the id's name). The name takes no part in
 * equality, hashing or order: two ids are equal when their 128 bits are.
 *
 * @param name the name the id was made from ({@link #of}, {@link #derive}); null when not known
 */
public record StreamId(long msb, long lsb, String name) implements Comparable<StreamId> {

  /**
   * Separates a derived stream's name from its base's in {@link #name}: the name of {@code
   * base.derive(suffix)} is {@code base.name() + DERIVED + suffix}.
   */
  public static final char DERIVED = '\0';

  /** The id of these 128 bits, its name not known. */
  public StreamId(long msb, long lsb) {
    this(msb, lsb, null);
  }

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
    return new StreamId(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits(), name);
  }

  /**
   * The stream derived from this one by {@code suffix}: the id of the name {@code this + suffix}
   * ({@link #toString} is the UUID text), e.g. an object's checkpoint stream. It remembers this
   * id's name (when known) as {@code name + DERIVED + suffix}, so that a node checking names can
   * tell which named stream it belongs to.
   */
  public StreamId derive(String suffix) {
    StreamId id = of(this + suffix);
    return new StreamId(id.msb, id.lsb, name == null ? null : name + DERIVED + suffix);
  }

  /**
   * The stream {@code name} claims to name, when it does name this id: {@code name} itself for a
   * plain name, or, for a derived name ({@code BASE + DERIVED + SUFFIX}), BASE, whose derived
   * stream this is; null when the name does not hash to this id.
   */
  public static String verifiedBase(StreamId id, String name) {
    int cut = name.indexOf(DERIVED);
    if (cut < 0) {
      return of(name).equals(id) ? name : null;
    }
    String base = name.substring(0, cut);
    return of(base).derive(name.substring(cut + 1)).equals(id) ? base : null;
  }

  /** Parses the canonical UUID text form. */
  public static StreamId parse(String uuid) {
    UUID u = UUID.fromString(uuid);
    return new StreamId(u.getMostSignificantBits(), u.getLeastSignificantBits());
  }

  /** The id of {@code msg}, with the name it carries (not checked: see {@link #verifiedBase}). */
  public static StreamId fromMsg(StreamIdMsg msg) {
    String name = msg.getName();
    return new StreamId(msg.getMsb(), msg.getLsb(), name.isEmpty() ? null : name);
  }

  /** This id on the wire, with its name when known. */
  public StreamIdMsg toMsg() {
    StreamIdMsg.Builder b = StreamIdMsg.newBuilder().setMsb(msb).setLsb(lsb);
    if (name != null) {
      b.setName(name);
    }
    return b.build();
  }

  /**
   * This id on the wire without its name, for a receiver that keys what it learns by id alone and
   * sends nothing on with it (a read lease's pushed tails).
   */
  public StreamIdMsg toIdOnlyMsg() {
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
