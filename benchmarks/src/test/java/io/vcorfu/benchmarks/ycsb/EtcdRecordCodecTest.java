package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class EtcdRecordCodecTest {
  static LongStream seeds() {
    long base = System.nanoTime();
    System.out.println("EtcdRecordCodecTest random seeds start at " + base);
    return LongStream.range(0, 20).map(i -> base + i);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void randomRecordsRoundTripWithFieldOrderAndBytes(long seed) {
    Random random = new Random(seed);
    LinkedHashMap<String, byte[]> record = new LinkedHashMap<>();
    int fields = random.nextInt(40);
    for (int i = 0; i < fields; i++) {
      StringBuilder name = new StringBuilder();
      int nameLength = random.nextInt(20);
      for (int c = 0; c < nameLength; c++) {
        name.append(
            (char) (random.nextBoolean() ? 'a' + random.nextInt(26) : 0x3B1 + random.nextInt(20)));
      }
      byte[] value =
          new byte[random.nextInt(3) == 0 ? random.nextInt(20_000) : random.nextInt(200)];
      random.nextBytes(value);
      record.put(name.toString(), value);
    }
    LinkedHashMap<String, byte[]> decoded = EtcdRecordCodec.decode(EtcdRecordCodec.encode(record));
    assertThat(decoded.keySet()).containsExactlyElementsOf(record.keySet());
    record.forEach(
        (name, value) -> assertThat(decoded.get(name)).as("field %s", name).isEqualTo(value));
  }

  @Test
  void emptyRecordRoundTrips() {
    assertThat(EtcdRecordCodec.decode(EtcdRecordCodec.encode(Map.of()))).isEmpty();
  }

  @Test
  void encodingIsCompact() {
    LinkedHashMap<String, byte[]> record = new LinkedHashMap<>();
    for (int i = 0; i < 10; i++) {
      record.put("field" + i, new byte[100]);
    }
    // version + count + 10 * (name length + "fieldN" + value length + 100 bytes)
    assertThat(EtcdRecordCodec.encode(record)).hasSize(1 + 1 + 10 * (1 + 6 + 1 + 100));
  }

  @Test
  void truncatedRecordIsRejected() {
    byte[] full = EtcdRecordCodec.encode(Map.of("field0", new byte[] {1, 2, 3}));
    for (int length = 0; length < full.length; length++) {
      byte[] cut = Arrays.copyOf(full, length);
      assertThatThrownBy(() -> EtcdRecordCodec.decode(cut))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void trailingBytesAndUnknownVersionsAreRejected() {
    byte[] full = EtcdRecordCodec.encode(Map.of("f", new byte[] {7}));
    assertThatThrownBy(() -> EtcdRecordCodec.decode(Arrays.copyOf(full, full.length + 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("after its last field");
    byte[] otherVersion = full.clone();
    otherVersion[0] = 2;
    assertThatThrownBy(() -> EtcdRecordCodec.decode(otherVersion))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("format version 2");
  }
}
