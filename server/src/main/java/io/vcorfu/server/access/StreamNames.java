package io.vcorfu.server.access;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.StreamIdMsg;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The names of the streams a node was told, each checked against its id before it is believed: a
 * stream id is a hash of its name ({@link StreamId#of}), so a name that hashes to the id is its
 * name, and a caller cannot pass one stream off as another. A derived stream (an object's
 * checkpoint stream, {@link StreamId#derive}) answers the name of the stream it derives from, whose
 * grants govern it. Names once checked are remembered (at most {@link #MAX} streams), so a request
 * that names a stream by its id alone is still judged by its name. Thread-safe.
 */
final class StreamNames {
  static final int MAX = 1 << 20;

  private final ConcurrentHashMap<StreamId, String> known = new ConcurrentHashMap<>();

  /** The name whose grants govern {@code msg}'s stream; null when it is not known. */
  String nameOf(StreamIdMsg msg) {
    StreamId id = new StreamId(msg.getMsb(), msg.getLsb());
    String have = known.get(id);
    if (have != null || msg.getName().isEmpty()) {
      return have;
    }
    String base = StreamId.verifiedBase(id, msg.getName());
    if (base != null) {
      if (known.size() >= MAX) {
        known.clear();
      }
      known.put(id, base);
    }
    return base;
  }
}
