package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One name of the {@link NameDirectory}: the name a client gave, what it names ({@code kind}: a
 * {@link #LOG log stream}, a {@link #MAP map}, an {@link #OBJECT object}; other kinds a later
 * version may write are kept as they are), the class of an object or collection ({@code type},
 * empty for a log stream), the stream that identifies it ({@code stream}: the named stream itself,
 * or a map's layout stream), the global address of its first registration ({@code firstAddress}),
 * and for a collection over several streams how many it has ({@code parts}, e.g. a map's buckets; 0
 * when none or unknown).
 */
public record DirectoryEntry(
    String name, String kind, String type, StreamId stream, long firstAddress, int parts) {
  /** A stream written by name ({@code vcorfu log append --stream NAME}). */
  public static final String LOG = "log";

  /** A map of several streams ({@code CSMRMap}, {@code vcorfu map}). */
  public static final String MAP = "map";

  /** An object opened by name through the runtime (its class in {@link #type}). */
  public static final String OBJECT = "object";

  /** First byte of an encoded entry, then its format version. */
  private static final int MAGIC = 'N';

  private static final int VERSION = 1;

  public DirectoryEntry {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    type = type == null ? "" : type;
    Objects.requireNonNull(stream, "stream");
  }

  /** The entry a client registers: its address is not known until it is in the log. */
  public static DirectoryEntry of(
      String kind, String name, String type, StreamId stream, int parts) {
    return new DirectoryEntry(name, kind, type, stream, -1, parts);
  }

  /**
   * The record's bytes on the directory stream: everything but the address, which is where the
   * record lies.
   */
  public byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(MAGIC);
      out.writeByte(VERSION);
      text(out, kind);
      text(out, name);
      text(out, type);
      out.writeLong(stream.msb());
      out.writeLong(stream.lsb());
      out.writeInt(parts);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * The record {@code payload} holds, as registered at global address {@code address}; null for a
   * payload that is not a record of this format (nothing else is appended to the directory, so that
   * is only a record of a later version).
   */
  static DirectoryEntry decode(byte[] payload, long address) {
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(payload))) {
      if (in.readUnsignedByte() != MAGIC || in.readUnsignedByte() != VERSION) {
        return null;
      }
      String kind = text(in);
      String name = text(in);
      String type = text(in);
      StreamId stream = new StreamId(in.readLong(), in.readLong());
      return new DirectoryEntry(name, kind, type, stream, address, in.readInt());
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Whether this entry already says what {@code wanted} would: a new record adds nothing. */
  boolean covers(DirectoryEntry wanted) {
    return name.equals(wanted.name) && kind.equals(wanted.kind) && parts >= wanted.parts;
  }

  /**
   * This entry and {@code later}, a record of the same name and kind: the first address wins (the
   * lower one), and the most parts any record saw.
   */
  DirectoryEntry merge(DirectoryEntry later) {
    boolean laterFirst =
        firstAddress < 0 || (later.firstAddress >= 0 && later.firstAddress < firstAddress);
    DirectoryEntry first = laterFirst ? later : this;
    return new DirectoryEntry(
        name, kind, first.type, first.stream, first.firstAddress, Math.max(parts, later.parts));
  }

  private static void text(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String text(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > in.available()) {
      throw new IOException("bad length " + n);
    }
    return new String(in.readNBytes(n), StandardCharsets.UTF_8);
  }
}
