package io.vcorfu.runtime.smr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.serialization.SerializationException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SmrRecordTest {
  private final StreamId a = new StreamId(0x0102030405060708L, 0x1112131415161718L);
  private final StreamId b = StreamId.of("b");

  @Test
  void multiStreamEntryRoundTripsInOrder() {
    List<SmrRecord.Update> updates =
        List.of(
            new SmrRecord.Update(a, "deposit(long)", new byte[][] {{7, 10}}, List.of()),
            new SmrRecord.Update(
                b,
                "put(java.lang.String,int)",
                new byte[][] {{10, 1, 'k'}, {6, 2}},
                List.of(new byte[] {10, 1, 'k'})));
    List<SmrRecord.Update> back = SmrRecord.decode(SmrRecord.encode(updates));
    assertThat(back).hasSize(2);
    assertThat(back.get(0).stream()).isEqualTo(a);
    assertThat(back.get(0).signature()).isEqualTo("deposit(long)");
    assertThat(back.get(0).args()[0]).containsExactly(7, 10);
    assertThat(back.get(0).conflictKeys()).isEmpty();
    assertThat(back.get(1).stream()).isEqualTo(b);
    assertThat(back.get(1).args()).hasNumberOfRows(2);
    assertThat(back.get(1).conflictKeys())
        .singleElement()
        .satisfies(k -> assertThat(k).containsExactly(10, 1, 'k'));
  }

  @Test
  void encodingIsTheDocumentedFormat() {
    byte[] bytes =
        SmrRecord.encode(
            300, List.of(new SmrRecord.Update(a, "f()", new byte[][] {{0}}, List.of())));
    assertThat(bytes)
        .containsExactly(
            2, 0xac, 0x02, 1, 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
            0x18, 3, 'f', '(', ')', 1, 1, 0, 0);
    assertThat(SmrRecord.decodeEntry(bytes).timeMillis()).isEqualTo(300);
  }

  @Test
  void theFirstFormatWithoutATimeIsStillRead() {
    byte[] first = {
      1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 3, 'f', '(',
      ')', 1, 1, 0, 0
    };
    SmrRecord.Entry e = SmrRecord.decodeEntry(first);
    assertThat(e.timeMillis()).isEqualTo(-1);
    assertThat(e.updates())
        .singleElement()
        .satisfies(u -> assertThat(u.signature()).isEqualTo("f()"));
  }

  @Test
  void anEntryMadeNowCarriesTheWritersTime() {
    long before = System.currentTimeMillis();
    byte[] bytes =
        SmrRecord.encode(List.of(new SmrRecord.Update(a, "f()", new byte[0][], List.of())));
    assertThat(SmrRecord.decodeEntry(bytes).timeMillis())
        .isBetween(before, System.currentTimeMillis());
  }

  @Test
  void malformedPayloadsAreRejected() {
    byte[] good =
        SmrRecord.encode(List.of(new SmrRecord.Update(a, "f()", new byte[0][], List.of())));
    assertThatThrownBy(() -> SmrRecord.decode(Arrays.copyOf(good, good.length - 1)))
        .isInstanceOf(SerializationException.class);
    byte[] wrongVersion = good.clone();
    wrongVersion[0] = 9;
    assertThatThrownBy(() -> SmrRecord.decode(wrongVersion))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("version 9");
    byte[] trailing = Arrays.copyOf(good, good.length + 1);
    assertThatThrownBy(() -> SmrRecord.decode(trailing))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("unexpected");
  }
}
