package io.vcorfu.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Stream ids and the names they carry: the id is the name's RFC 4122 hash, the name rides on the
 * wire and takes no part in equality, and a name is believed only when it hashes to the id.
 */
class StreamIdTest {
  @Test
  void theIdIsTheNamesHashAndTheNameRidesAlong() {
    StreamId s = StreamId.of("orders");
    UUID u = UUID.nameUUIDFromBytes("orders".getBytes(StandardCharsets.UTF_8));
    assertThat(s.toUuid()).isEqualTo(u);
    assertThat(s.name()).isEqualTo("orders");
    StreamId back = StreamId.fromMsg(s.toMsg());
    assertThat(back.name()).isEqualTo("orders");
    assertThat(back).isEqualTo(s);
    StreamId bare = new StreamId(s.msb(), s.lsb());
    assertThat(bare).isEqualTo(s).hasSameHashCodeAs(s);
    assertThat(bare.toMsg().getName()).isEmpty();
    assertThat(StreamId.fromMsg(bare.toMsg()).name()).isNull();
  }

  @Test
  void aDerivedStreamKeepsItsBasesNameAndItsIdIsUnchanged() {
    StreamId base = StreamId.of("a/map");
    StreamId cp = base.derive("/checkpoint");
    assertThat(cp).isEqualTo(StreamId.of(base + "/checkpoint"));
    assertThat(cp.name()).isEqualTo("a/map" + StreamId.DERIVED + "/checkpoint");
    assertThat(StreamId.verifiedBase(cp, cp.name())).isEqualTo("a/map");
    assertThat(new StreamId(base.msb(), base.lsb()).derive("/checkpoint").name()).isNull();
  }

  @Test
  void aNameThatIsNotTheIdsIsNotBelieved() {
    StreamId a = StreamId.of("a/x");
    StreamId b = StreamId.of("b/y");
    assertThat(StreamId.verifiedBase(a, "a/x")).isEqualTo("a/x");
    assertThat(StreamId.verifiedBase(b, "a/x")).isNull();
    assertThat(
            StreamId.verifiedBase(
                b.derive("/checkpoint"), "a/x" + StreamId.DERIVED + "/checkpoint"))
        .isNull();
    assertThat(StreamId.verifiedBase(a, "a/x" + StreamId.DERIVED + "/checkpoint")).isNull();
  }
}
