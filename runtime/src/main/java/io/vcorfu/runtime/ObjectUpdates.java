package io.vcorfu.runtime;

import io.vcorfu.client.Publishers;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamWatch;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.serialization.SerializationException;
import io.vcorfu.runtime.serialization.Serializer;
import io.vcorfu.runtime.smr.SmrRecord;
import io.vcorfu.runtime.smr.UpdateCodec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Flow;

/**
 * The committed updates of some objects made by one log entry: a plain mutator call makes one, a
 * transaction one per update it made to a watched object, in the order it made them. What {@link
 * VCorfuRuntime#watch} delivers.
 *
 * @param globalAddress the entry's global address (resume a watch after it with {@code
 *     globalAddress + 1})
 * @param timeMillis when its writer made the entry, by the writer's clock (milliseconds since the
 *     epoch; -1 for entries written before entries carried a time)
 * @param updates the updates, each with its object's stream, its method's signature (as {@code
 *     put(java.lang.Object,java.lang.Object)}) and its arguments, decoded
 */
public record ObjectUpdates(long globalAddress, long timeMillis, List<Update> updates) {

  /** One update of one object. */
  public record Update(StreamId stream, String method, Object[] args) {
    /** The method's name, without its parameter types. */
    public String methodName() {
      int paren = method.indexOf('(');
      return paren < 0 ? method : method.substring(0, paren);
    }
  }

  /**
   * {@code watch}'s entries as the updates they make to its streams, decoded with {@code
   * serializer}; an entry that holds none of them, or is not an update at all, is passed over.
   */
  static Flow.Publisher<ObjectUpdates> of(StreamWatch watch, Serializer serializer) {
    Set<StreamId> watched = new HashSet<>(watch.streams());
    return Publishers.mapping(watch, e -> decode(e, watched, serializer));
  }

  /** {@code e}'s updates of the {@code watched} streams, or null when it holds none. */
  static ObjectUpdates decode(StreamEntry e, Set<StreamId> watched, Serializer serializer) {
    SmrRecord.Entry entry;
    try {
      entry = SmrRecord.decodeEntry(e.payload());
    } catch (SerializationException notAnUpdate) {
      return null;
    }
    List<Update> mine = new ArrayList<>();
    for (SmrRecord.Update u : entry.updates()) {
      if (watched.contains(u.stream())) {
        mine.add(
            new Update(u.stream(), u.signature(), UpdateCodec.decodeArgs(u.args(), serializer)));
      }
    }
    return mine.isEmpty()
        ? null
        : new ObjectUpdates(e.globalAddress(), entry.timeMillis(), List.copyOf(mine));
  }
}
