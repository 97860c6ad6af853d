package io.vcorfu.runtime.smr;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ConflictKey;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.proxy.MethodModel;
import io.vcorfu.runtime.serialization.Serializer;
import java.util.ArrayList;
import java.util.List;

/** Serializes method calls into {@link SmrRecord.Update}s and their conflict keys. */
public final class UpdateCodec {
  private static final byte[] WHOLE_OBJECT = new byte[0];

  private UpdateCodec() {}

  /**
   * Serializes a call. Every argument goes through {@code serializer} here, at the call site, so a
   * value the serializer rejects fails before anything is appended.
   */
  public static SmrRecord.Update toUpdate(
      StreamId stream, MethodModel m, Object[] args, Serializer serializer) {
    byte[][] encoded = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      encoded[i] = serializer.serialize(args[i]);
    }
    byte[] key = conflictKey(m, args, serializer);
    return new SmrRecord.Update(
        stream,
        m.signature(),
        encoded,
        key.length == 0 && m.conflictParameters().length == 0 ? List.of() : List.of(key));
  }

  /**
   * The key a call conflicts on: empty (the whole object) without {@code @ConflictParameter}, the
   * serialized parameter with one, the serialized list of the parameters with several.
   */
  public static byte[] conflictKey(MethodModel m, Object[] args, Serializer serializer) {
    int[] idx = m.conflictParameters();
    if (idx.length == 0) {
      return WHOLE_OBJECT;
    }
    if (idx.length == 1) {
      return serializer.serialize(args[idx[0]]);
    }
    List<Object> values = new ArrayList<>(idx.length);
    for (int i : idx) {
      values.add(args[i]);
    }
    return serializer.serialize(values);
  }

  /**
   * Appends one update made outside a transaction, alone in its entry. An update with a conflict
   * key is a keyed blind write: the sequencer records only that key of the stream as written (no
   * read is checked), so it aborts exactly the transactions that read that key or the whole object.
   * An update without one is a whole-object write.
   */
  public static AppendResult appendAlone(RuntimeCore core, SmrRecord.Update update) {
    byte[] payload = SmrRecord.encode(List.of(update));
    List<StreamId> streams = List.of(update.stream());
    if (update.conflictKeys().isEmpty()) {
      return core.await(core.log().append(streams, payload));
    }
    List<ConflictKey> keys = new ArrayList<>();
    for (byte[] key : update.conflictKeys()) {
      keys.add(new ConflictKey(update.stream(), key));
    }
    return core.await(
        core.log().appendConditional(streams, payload, new IssueCondition(-1, 0, List.of(), keys)));
  }

  public static Object[] decodeArgs(byte[][] args, Serializer serializer) {
    Object[] out = new Object[args.length];
    for (int i = 0; i < args.length; i++) {
      out[i] = serializer.deserialize(args[i]);
    }
    return out;
  }
}
