package io.vcorfu.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.serialization.DefaultSerializer;
import io.vcorfu.runtime.serialization.SerializationException;
import io.vcorfu.runtime.smr.ViewBase;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * Arbitrary bytes from a checkpoint stream. {@link Checkpoints#decode} answers a checkpoint whose
 * encoding decodes to the same checkpoint and encodes to the same bytes again, or throws {@link
 * SerializationException}; restoring a decoded image into a fresh object either succeeds, and the
 * restored object's own image restores to an equal image, or throws {@link SerializationException}
 * or {@link IllegalArgumentException} (what a view skips a bad checkpoint on). Nothing else: no
 * index error, no oversized allocation.
 *
 * <p>The stream a checkpoint must name is the one in bytes 1 to 16 of the input (when it is that
 * long), so that the decoder behind that check is reached. Corpora: {@code
 * CheckpointFuzzTestInputs/<method>}.
 */
class CheckpointFuzzTest {
  /** An object with a field of each kind a view's state commonly has. */
  static class Ledger {
    long balance;
    String owner;
    List<String> history;
    Map<String, Integer> limits;
    byte[] note;
  }

  private static final String LEDGER = "io.vcorfu.runtime.checkpoint.CheckpointFuzzTest$Ledger";

  private static StreamId expectedStream(byte[] input) {
    if (input.length < 17) {
      return StreamId.of("ledger");
    }
    ByteBuffer b = ByteBuffer.wrap(input, 1, 16);
    return new StreamId(b.getLong(), b.getLong());
  }

  @FuzzTest(maxDuration = "5m")
  void anyCheckpointDecodesOrIsRefused(byte[] input) {
    StreamId stream = expectedStream(input);
    ViewBase base;
    try {
      base = Checkpoints.decode(input, stream);
    } catch (SerializationException refused) {
      return;
    }
    CheckpointImage image = base.image();
    byte[] canonical = Checkpoints.encode(stream, image, base.version(), base.streamPos());
    ViewBase again = Checkpoints.decode(canonical, stream);
    assertThat(again.version()).isEqualTo(base.version());
    assertThat(again.streamPos()).isEqualTo(base.streamPos());
    assertThat(again.image().typeName()).isEqualTo(image.typeName());
    assertThat(again.image().values()).containsOnlyKeys(image.values().keySet());
    image.values().forEach((k, v) -> assertThat(again.image().values().get(k)).isEqualTo(v));
    assertThat(Checkpoints.encode(stream, again.image(), again.version(), again.streamPos()))
        .isEqualTo(canonical);
  }

  @FuzzTest(maxDuration = "5m")
  @DictionaryEntries({
    LEDGER,
    LEDGER + ".balance",
    LEDGER + ".owner",
    LEDGER + ".history",
    LEDGER + ".limits",
    LEDGER + ".note"
  })
  void anyCheckpointRestoresOrIsRefused(byte[] input) {
    StreamId stream = expectedStream(input);
    DefaultSerializer serializer = new DefaultSerializer();
    Ledger restored = new Ledger();
    try {
      Checkpoints.decode(input, stream).image().restoreInto(restored, serializer);
    } catch (SerializationException | IllegalArgumentException refused) {
      return;
    }
    CheckpointImage image = CheckpointImage.capture(Ledger.class, restored, serializer);
    Ledger again = new Ledger();
    image.restoreInto(again, serializer);
    CheckpointImage second = CheckpointImage.capture(Ledger.class, again, serializer);
    assertThat(second.values()).containsOnlyKeys(image.values().keySet());
    image.values().forEach((k, v) -> assertThat(second.values().get(k)).isEqualTo(v));
  }
}
