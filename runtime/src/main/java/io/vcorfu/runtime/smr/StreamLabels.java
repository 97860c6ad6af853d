package io.vcorfu.runtime.smr;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.runtime.serialization.Serializer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How one runtime's messages name the streams of the objects it opened: what the object is called
 * (for example {@code map 'users'} for every bucket of a map, {@code Counter 'hits'} for an object
 * opened by name) and the serializer its conflict keys were encoded with, so that a transaction
 * conflict reads {@code map 'users' key 'alice'} instead of a stream id and bytes. A stream the
 * runtime has no label for is named by its id, and a key that does not decode is shown escaped.
 *
 * <p>Thread-safe.
 */
public final class StreamLabels {
  /** The longest decoded key a message shows whole. */
  private static final int KEY_CHARS = 64;

  private record Label(String what, Serializer serializer) {}

  private final Map<StreamId, Label> labels = new ConcurrentHashMap<>();

  /**
   * Names {@code stream} {@code what} in messages (null: by its id), its keys decoded by {@code
   * serializer}. A stream keeps the first name it was given: every view of one stream in a runtime
   * is the same object.
   */
  public void label(StreamId stream, String what, Serializer serializer) {
    labels.merge(
        stream, new Label(what, serializer), (old, given) -> old.what() != null ? old : given);
  }

  /** What {@code stream} is called here: its name, else {@code stream ID}. */
  public String describe(StreamId stream) {
    Label l = stream == null ? null : labels.get(stream);
    return l != null && l.what() != null ? l.what() : "stream " + stream;
  }

  /**
   * The stream and, when not empty, the key a conflict was on: {@code map 'users' key 'alice'}; a
   * key of a stream without a label, or one that does not decode, as {@link
   * TokenRefusedException#shortKey}.
   */
  public String describe(StreamId stream, byte[] key) {
    String what = describe(stream);
    if (key == null || key.length == 0) {
      return what;
    }
    Label l = stream == null ? null : labels.get(stream);
    return what + " key " + (l == null ? TokenRefusedException.shortKey(key) : key(l, key));
  }

  private static String key(Label l, byte[] key) {
    Object decoded;
    try {
      decoded = l.serializer().deserialize(key);
    } catch (RuntimeException undecodable) {
      return TokenRefusedException.shortKey(key);
    }
    String text = String.valueOf(decoded);
    if (text.length() > KEY_CHARS) {
      text = text.substring(0, KEY_CHARS) + "...";
    }
    StringBuilder b = new StringBuilder("'");
    text.codePoints()
        .forEach(
            c -> {
              if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", c));
              } else {
                b.appendCodePoint(c);
              }
            });
    return b.append('\'').toString();
  }
}
