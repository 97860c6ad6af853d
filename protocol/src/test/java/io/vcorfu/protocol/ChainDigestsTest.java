package io.vcorfu.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The digests of tamper evidence: an entry's digest ignores only the writer's epoch, any other
 * changed byte changes it; heads chain positions in order; a pinned head's text form round-trips
 * and bad text is refused with what is wrong; a damaged-copy error crosses the wire whole.
 */
class ChainDigestsTest {
  private static LogEntryMsg entry(long epoch, String value) {
    return LogEntryMsg.newBuilder()
        .setGlobalAddress(77)
        .setKind(EntryKind.DATA)
        .setEpoch(epoch)
        .setNonce(12345)
        .addSlots(StreamSlot.newBuilder().setStream(StreamId.of("s").toMsg()).setStreamAddress(3))
        .setPayload(ByteString.copyFromUtf8(value))
        .build();
  }

  @Test
  void anEntrysDigestIgnoresItsEpochOnly() {
    byte[] one = ChainDigests.ofEntry(entry(1, "value").toByteArray());
    assertThat(ChainDigests.ofEntry(entry(9, "value").toByteArray())).isEqualTo(one);
    assertThat(ChainDigests.ofEntry(entry(0, "value").toByteArray())).isEqualTo(one);
    assertThat(ChainDigests.ofEntry(entry(1, "valuf").toByteArray())).isNotEqualTo(one);
    assertThat(one).hasSize(ChainDigests.LENGTH).isNotEqualTo(ChainDigests.HOLE);
  }

  /** Every single flipped bit of a serialized entry changes its digest (seed logged). */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void everyFlippedBitChangesTheDigest(long seed) {
    System.out.println("ChainDigestsTest seed " + seed);
    Random random = new Random(seed);
    byte[] value = new byte[64 + random.nextInt(200)];
    random.nextBytes(value);
    LogEntryMsg e =
        entry(1 + random.nextInt(5), "").toBuilder().setPayload(ByteString.copyFrom(value)).build();
    byte[] bytes = e.toByteArray();
    byte[] noEpoch = e.toBuilder().clearEpoch().build().toByteArray();
    int epochAt = 0;
    while (bytes[epochAt] == noEpoch[epochAt]) {
      epochAt++;
    }
    int epochLength = bytes.length - noEpoch.length; // its tag and its value
    byte[] digest = ChainDigests.ofEntry(bytes);
    for (int i = 0; i < bytes.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] altered = bytes.clone();
        altered[i] ^= (byte) (1 << bit);
        if (ChainDigests.same(ChainDigests.ofEntry(altered), digest)) {
          assertThat(i)
              .as("byte %d bit %d changes nothing: only the epoch's value may", i, bit)
              .isGreaterThan(epochAt)
              .isLessThan(epochAt + epochLength);
        }
      }
    }
  }

  @Test
  void headsChainPositionsInOrder() {
    StreamId s = StreamId.of("s");
    byte[] d0 = ChainDigests.ofEntry(entry(1, "a").toByteArray());
    byte[] d1 = ChainDigests.ofEntry(entry(1, "b").toByteArray());
    byte[] h1 = ChainDigests.link(ChainDigests.link(ChainDigests.seed(s), 0, d0), 1, d1);
    assertThat(ChainDigests.link(ChainDigests.link(ChainDigests.seed(s), 0, d1), 1, d0))
        .isNotEqualTo(h1);
    assertThat(ChainDigests.link(ChainDigests.link(ChainDigests.seed(s), 1, d0), 2, d1))
        .isNotEqualTo(h1);
    assertThat(ChainDigests.seed(StreamId.of("t"))).isNotEqualTo(ChainDigests.seed(s));
  }

  @Test
  void aPinnedHeadsTextRoundTripsAndBadTextSaysWhatIsWrong() {
    ChainHead h = new ChainHead(StreamId.of("a@b"), 41, ChainDigests.HOLE);
    assertThat(ChainHead.parse(h.toString())).isEqualTo(h);
    assertThat(h.toString()).startsWith("a@b@41:");
    ChainHead byId = new ChainHead(new StreamId(1, 2), -1, ChainDigests.HOLE);
    assertThat(ChainHead.parse(byId.toString())).isEqualTo(byId);
    assertThatThrownBy(() -> ChainHead.parse("nothing"))
        .hasMessageContaining("STREAM@POSITION:HASH");
    assertThatThrownBy(() -> ChainHead.parse("s@x:00")).hasMessageContaining("not 'x'");
    assertThatThrownBy(() -> ChainHead.parse("s@-2:" + "0".repeat(64))).hasMessageContaining("-1");
    assertThatThrownBy(() -> ChainHead.parse("s@3:abc")).hasMessageContaining("64 hex digits");
    assertThatThrownBy(() -> ChainHead.parse("s@3:" + "g".repeat(64)))
        .hasMessageContaining("64 hex digits");
  }

  @Test
  void aDamagedCopyErrorCrossesTheWireWhole() {
    StreamId s = StreamId.of("s");
    VCorfuException back = Errors.toException(Errors.toMsg(new DamagedEntryException(s, 17)));
    assertThat(back).isInstanceOf(DamagedEntryException.class);
    assertThat(((DamagedEntryException) back).stream()).isEqualTo(s);
    assertThat(((DamagedEntryException) back).address()).isEqualTo(17);
    assertThat(back.getMessage()).contains("address 17").contains("another replica");
    DamagedEntryException log =
        (DamagedEntryException)
            Errors.toException(Errors.toMsg(new DamagedEntryException(null, 5)));
    assertThat(log.stream()).isNull();
    assertThat(log.getMessage()).contains("global address 5");
  }
}
