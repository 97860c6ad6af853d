package io.vcorfu.runtime.serialization;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vcorfu.runtime.smr.SmrRecord;
import java.util.List;

/**
 * Arbitrary bytes from the log as SMR payloads. {@link DefaultSerializer#deserialize} (with a
 * record and an enum admitted, so that those paths are reached) answers a value that serializes
 * back and decodes to an equal value, or throws {@link SerializationException}; {@link
 * SmrRecord#decode} answers updates that encode back to the same bytes, or throws {@link
 * SerializationException}. Nothing else: no index error, no oversized allocation.
 *
 * <p>Corpora: {@code SerializerFuzzTestInputs/<method>}.
 */
class SerializerFuzzTest {
  record Point(int x, int y) {}

  record Shape(String name, List<Point> points, Color color) {}

  enum Color {
    RED,
    GREEN
  }

  private static final DefaultSerializer SERIALIZER = new DefaultSerializer().allow(Shape.class);

  @FuzzTest(maxDuration = "10m")
  void anyValuePayloadDecodesOrIsRefused(byte[] input) {
    Object value;
    try {
      value = SERIALIZER.deserialize(input);
    } catch (SerializationException refused) {
      return;
    }
    // The value's own encoding is canonical: it decodes to a value with the same encoding.
    byte[] canonical = SERIALIZER.serialize(value);
    assertThat(SERIALIZER.serialize(SERIALIZER.deserialize(canonical))).isEqualTo(canonical);
  }

  @FuzzTest(maxDuration = "10m")
  void anySmrEntryDecodesOrIsRefused(byte[] input) {
    List<SmrRecord.Update> updates;
    try {
      updates = SmrRecord.decode(input);
    } catch (SerializationException refused) {
      return;
    }
    List<SmrRecord.Update> again = SmrRecord.decode(SmrRecord.encode(updates));
    assertThat(again).hasSameSizeAs(updates);
    for (int i = 0; i < updates.size(); i++) {
      SmrRecord.Update u = updates.get(i);
      SmrRecord.Update v = again.get(i);
      assertThat(v.stream()).isEqualTo(u.stream());
      assertThat(v.signature()).isEqualTo(u.signature());
      assertThat(v.args()).isDeepEqualTo(u.args());
      assertThat(v.conflictKeys()).containsExactlyElementsOf(u.conflictKeys());
    }
  }
}
