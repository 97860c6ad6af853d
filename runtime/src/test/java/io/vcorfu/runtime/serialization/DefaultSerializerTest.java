package io.vcorfu.runtime.serialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DefaultSerializerTest {
  record Point(int x, int y) {}

  record Shape(String name, List<Point> points, Color color) {}

  enum Color {
    RED,
    GREEN
  }

  /** A registered user type. */
  static final class Money {
    final long cents;

    Money(long cents) {
      this.cents = cents;
    }
  }

  private final DefaultSerializer s = new DefaultSerializer();

  private Object roundTrip(Object v) {
    return s.deserialize(s.serialize(v));
  }

  @Test
  void primitivesStringsBytesAndTimeRoundTrip() {
    for (Object v :
        new Object[] {
          null,
          true,
          false,
          (byte) -3,
          (short) 300,
          'x',
          7,
          -7,
          Integer.MIN_VALUE,
          Long.MAX_VALUE,
          Long.MIN_VALUE,
          1.5f,
          -0.0d,
          Double.NaN,
          "héllo",
          Instant.parse("2026-11-22T10:00:00.123Z"),
          UUID.randomUUID()
        }) {
      assertThat(roundTrip(v)).isEqualTo(v);
    }
    assertThat((byte[]) roundTrip(new byte[] {1, 2, 3})).containsExactly(1, 2, 3);
  }

  @Test
  void anInstantOutOfRangeIsASerializationException() {
    // tag 17 (instant), seconds Long.MAX_VALUE (zig-zag varint), nanos 0: before, DateTimeException
    byte[] seconds = {(byte) 0xFE, -1, -1, -1, -1, -1, -1, -1, -1, 0x01};
    byte[] payload = new byte[seconds.length + 2];
    payload[0] = 17;
    System.arraycopy(seconds, 0, payload, 1, seconds.length);
    assertThatThrownBy(() -> s.deserialize(payload))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("out of range");
  }

  @Test
  void collectionsAndAdmittedRecordsRoundTrip() {
    s.allow(Shape.class);
    Shape shape = new Shape("tri", List.of(new Point(0, 0), new Point(3, 4)), Color.GREEN);
    Map<String, List<Shape>> m = Map.of("a", List.of(shape));
    assertThat(roundTrip(m)).isEqualTo(m);
    assertThat(roundTrip(Set.of(1, 2, 3))).isEqualTo(Set.of(1, 2, 3));
  }

  @Test
  void setsAndMapsEncodeToTheSameBytesWhateverTheirIterationOrder() {
    Set<String> a = new HashSet<>(List.of("pear", "apple", "fig", "kiwi"));
    Set<String> b = new TreeSet<>(List.of("kiwi", "fig", "apple", "pear"));
    assertThat(s.serialize(a)).isEqualTo(s.serialize(b));
    Map<String, Integer> m1 = new HashMap<>();
    Map<String, Integer> m2 = new LinkedHashMap<>();
    for (String k : List.of("z", "y", "x", "w")) {
      m1.put(k, k.length());
    }
    for (String k : List.of("w", "x", "y", "z")) {
      m2.put(k, k.length());
    }
    assertThat(s.serialize(m1)).isEqualTo(s.serialize(m2));
  }

  @Test
  void aMapIsItsSizeThenEachKeyAndValueInTheOrderOfTheKeysEncodings() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("bb", 1);
    m.put("a", new byte[] {7});
    m.put("b", Map.of("c", -1));
    // tag MAP (14), 2 entries; STRING (10) "a", BYTES (11) [7]; STRING "b", MAP {"c": INT (6) -1};
    // STRING "bb", INT 1 (zig-zag varints: -1 is 1, 1 is 2).
    assertThat(s.serialize(m))
        .containsExactly(
            14, 3, 10, 1, 'a', 11, 1, 7, 10, 1, 'b', 14, 1, 10, 1, 'c', 6, 1, 10, 2, 'b', 'b', 6,
            2);
  }

  @Test
  void largeMapsEncodeToTheSameBytesWhateverTheirIterationOrderAndDecodeBack() {
    Map<Object, Object> m1 = new LinkedHashMap<>();
    Map<Object, Object> m2 = new LinkedHashMap<>();
    for (int i = 0; i < 200; i++) {
      m1.put("k" + i, Map.of("f", i));
      m2.put("k" + (199 - i), Map.of("f", 199 - i));
    }
    m1.put(7L, "a long key");
    m2.put(7L, "a long key");
    assertThat(s.serialize(m1)).isEqualTo(s.serialize(m2));
    assertThat(s.deserialize(s.serialize(m1))).isEqualTo(m1);
  }

  @Test
  void typesNotOnTheAllowListAreRejected() {
    assertThatThrownBy(() -> s.serialize(new BigDecimal("1.5")))
        .isInstanceOf(UnsupportedTypeException.class)
        .hasMessageContaining("java.math.BigDecimal");
    assertThatThrownBy(() -> s.serialize(new Point(1, 2)))
        .isInstanceOf(UnsupportedTypeException.class)
        .hasMessageContaining("Point");
    assertThatThrownBy(() -> s.serialize(List.of(new Object())))
        .isInstanceOf(UnsupportedTypeException.class);
    assertThatThrownBy(() -> s.serialize(new int[] {1}))
        .isInstanceOf(UnsupportedTypeException.class);
  }

  @Test
  void payloadNamingATypeThatIsNotAllowedIsRejected() {
    DefaultSerializer writer = new DefaultSerializer().allow(Point.class);
    byte[] bytes = writer.serialize(new Point(1, 2));
    assertThatThrownBy(() -> s.deserialize(bytes))
        .isInstanceOf(UnsupportedTypeException.class)
        .hasMessageContaining("Point");
  }

  @Test
  void malformedPayloadsFailWithSerializationErrors() {
    byte[] good = s.serialize(List.of("abc", 12L));
    assertThatThrownBy(() -> s.deserialize(Arrays.copyOf(good, good.length - 1)))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("truncated");
    // A list claiming two billion elements in a few bytes.
    assertThatThrownBy(
            () ->
                s.deserialize(
                    new byte[] {12, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08}))
        .isInstanceOf(SerializationException.class);
    assertThatThrownBy(() -> s.deserialize(new byte[] {99}))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("tag");
    byte[] deep = new byte[200];
    Arrays.fill(deep, (byte) 12);
    for (int i = 1; i < deep.length; i += 2) {
      deep[i] = 1;
    }
    assertThatThrownBy(() -> s.deserialize(deep))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("deeper than");
  }

  @Test
  void registeredTypesUseTheirCodec() {
    s.register(
        Money.class,
        "test.Money",
        new TypeCodec<>() {
          @Override
          public void write(Money value, BinaryWriter out) {
            out.writeSignedVarLong(value.cents);
          }

          @Override
          public Money read(BinaryReader in) {
            return new Money(in.readSignedVarLong());
          }
        });
    Object back = roundTrip(List.of(new Money(-250)));
    assertThat(((Money) ((List<?>) back).get(0)).cents).isEqualTo(-250);
  }

  @Test
  void encodingIsTheDocumentedFormat() {
    // Golden bytes: the format is what other JVMs and conflict keys rely on.
    assertThat(s.serialize("apple")).containsExactly(10, 5, 'a', 'p', 'p', 'l', 'e');
    assertThat(s.serialize(-2)).containsExactly(6, 3);
    assertThat(s.serialize(300L)).containsExactly(7, 0xD8 - 256, 0x04);
    assertThat(s.serialize(List.of(true, false))).containsExactly(12, 2, 2, 1);
    assertThat(s.serialize(null)).containsExactly(0);
    assertThat(s.serialize(Instant.ofEpochSecond(1, 2))).containsExactly(17, 2, 2);
    s.allow(Color.class);
    byte[] red = s.serialize(Color.RED);
    assertThat(red[0]).isEqualTo((byte) 16);
    assertThat(new String(red, java.nio.charset.StandardCharsets.UTF_8))
        .contains(Color.class.getName())
        .endsWith("RED");
  }
}
