package io.vcorfu.runtime.smr;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.serialization.BinaryReader;
import io.vcorfu.runtime.serialization.BinaryWriter;
import io.vcorfu.runtime.serialization.SerializationException;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of an SMR log entry: one or more updates, each addressed to one stream. A plain
 * mutator call writes one update; a transaction commit writes all of its buffered updates, for all
 * of its streams, as one atomic multi-stream entry, in the order they were made.
 *
 * <p>Binary format (varints are unsigned LEB128; "bytes" is a varint length then the bytes;
 * "string" is bytes of UTF-8):
 *
 * <pre>
 * entry   := version:byte(=2) time:varint count:varint update{count}
 *            time: when the writer made the entry, in milliseconds since the epoch by its clock
 *            (version 1, read still, has no time: it reads as -1)
 * update  := stream.msb:fixed64-BE stream.lsb:fixed64-BE
 *            signature:string            e.g. "login(java.lang.String,java.time.Instant)"
 *            argc:varint arg:bytes{argc} each argument encoded alone by the object's serializer
 *            keyc:varint key:bytes{keyc} conflict keys (the serialized @ConflictParameter values);
 *                                        none = the update conflicts on the whole object
 * </pre>
 *
 * A view applies, in order, only the updates addressed to its own stream.
 */
public final class SmrRecord {
  static final int VERSION = 2;

  /** The first format, without a time, still read. */
  static final int VERSION_WITHOUT_TIME = 1;

  /** One serialized method call on one stream. */
  public record Update(
      StreamId stream, String signature, byte[][] args, List<byte[]> conflictKeys) {}

  /**
   * A whole entry: when its writer made it ({@code timeMillis}, by the writer's clock; -1 for the
   * first format) and its updates.
   */
  public record Entry(long timeMillis, List<Update> updates) {}

  private SmrRecord() {}

  /** {@code updates} as an entry made now. */
  public static byte[] encode(List<Update> updates) {
    return encode(System.currentTimeMillis(), updates);
  }

  /** {@code updates} as an entry made at {@code timeMillis} (0 or more). */
  public static byte[] encode(long timeMillis, List<Update> updates) {
    BinaryWriter w = new BinaryWriter();
    w.writeByte(VERSION).writeVarLong(Math.max(0, timeMillis)).writeVarLong(updates.size());
    for (Update u : updates) {
      w.writeFixedLong(u.stream().msb()).writeFixedLong(u.stream().lsb());
      w.writeString(u.signature());
      w.writeVarLong(u.args().length);
      for (byte[] a : u.args()) {
        w.writeBytes(a);
      }
      w.writeVarLong(u.conflictKeys().size());
      for (byte[] k : u.conflictKeys()) {
        w.writeBytes(k);
      }
    }
    return w.toByteArray();
  }

  /** The updates of an entry (either format). */
  public static List<Update> decode(byte[] payload) {
    return decodeEntry(payload).updates();
  }

  /** A whole entry (either format). */
  public static Entry decodeEntry(byte[] payload) {
    BinaryReader r = new BinaryReader(payload);
    int version = r.readByte();
    if (version != VERSION && version != VERSION_WITHOUT_TIME) {
      throw new SerializationException("unknown SMR entry format version " + version);
    }
    long time = version == VERSION ? r.readVarLong() : -1;
    int n = r.readLength();
    List<Update> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      StreamId stream = new StreamId(r.readFixedLong(), r.readFixedLong());
      String signature = r.readString();
      byte[][] args = new byte[r.readLength()][];
      for (int a = 0; a < args.length; a++) {
        args[a] = r.readBytes();
      }
      int keys = r.readLength();
      List<byte[]> conflictKeys = new ArrayList<>(keys);
      for (int k = 0; k < keys; k++) {
        conflictKeys.add(r.readBytes());
      }
      out.add(new Update(stream, signature, args, conflictKeys));
    }
    r.expectEnd();
    return new Entry(time, out);
  }
}
