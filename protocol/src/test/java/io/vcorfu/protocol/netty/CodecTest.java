package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.testing.Messages;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class CodecTest {
  private static final Logger LOG = LoggerFactory.getLogger(CodecTest.class);

  /** The bytes a client puts on the wire for {@code requests}. */
  private static byte[] wireBytes(List<Request> requests) {
    EmbeddedChannel out = new EmbeddedChannel(ProtoEncoder.INSTANCE);
    requests.forEach(out::writeOutbound);
    ByteBuf all = Unpooled.buffer();
    for (ByteBuf b; (b = out.readOutbound()) != null; ) {
      all.writeBytes(b);
      b.release();
    }
    assertThat(out.finish()).isFalse();
    byte[] bytes = new byte[all.readableBytes()];
    all.readBytes(bytes);
    all.release();
    return bytes;
  }

  private static EmbeddedChannel serverInbound(int maxFrame) {
    return new EmbeddedChannel(Framing.newFrameDecoder(maxFrame), ProtoDecoder.REQUESTS);
  }

  private static List<Request> readAll(EmbeddedChannel ch) {
    List<Request> got = new ArrayList<>();
    for (Request r; (r = ch.readInbound()) != null; ) {
      got.add(r);
    }
    return got;
  }

  private static List<Request> sample(int n) {
    return LongStream.range(0, n)
        .mapToObj(i -> i % 3 == 0 ? Messages.ping(i) : Messages.numbered(i, i * 7))
        .toList();
  }

  @Test
  void encodedFrameIsLengthPrefixedAndDecodesToTheSameRequest() {
    Request ping = Messages.ping(42);
    byte[] bytes = wireBytes(List.of(ping));
    assertThat(bytes).hasSize(4 + ping.getSerializedSize());
    assertThat(Unpooled.wrappedBuffer(bytes).getInt(0)).isEqualTo(ping.getSerializedSize());

    EmbeddedChannel in = serverInbound(1024);
    assertThat(in.writeInbound(Unpooled.wrappedBuffer(bytes))).isTrue();
    assertThat(readAll(in)).containsExactly(ping);
    assertThat(in.finish()).isFalse();
  }

  @Test
  void encodedFramesMatchWhatALengthFieldPrependerProduces() {
    List<Request> sent = sample(5);
    EmbeddedChannel reference =
        new EmbeddedChannel(
            new io.netty.handler.codec.LengthFieldPrepender(4),
            new io.netty.handler.codec.protobuf.ProtobufEncoder());
    sent.forEach(reference::writeOutbound);
    ByteBuf expected = Unpooled.buffer();
    for (ByteBuf b; (b = reference.readOutbound()) != null; ) {
      expected.writeBytes(b);
      b.release();
    }
    byte[] want = new byte[expected.readableBytes()];
    expected.readBytes(want);
    expected.release();
    assertThat(reference.finish()).isFalse();
    assertThat(wireBytes(sent)).isEqualTo(want);
  }

  @Test
  void aBatchIsEncodedAsConsecutiveFramesInOneBuffer() {
    List<Request> sent = sample(50);
    EmbeddedChannel out = new EmbeddedChannel(ProtoEncoder.INSTANCE);
    out.writeOutbound(new ProtoEncoder.Batch(sent));
    ByteBuf one = out.readOutbound();
    Object next = out.readOutbound();
    assertThat(next).isNull();
    EmbeddedChannel in = serverInbound(1024);
    in.writeInbound(one);
    assertThat(readAll(in)).containsExactlyElementsOf(sent);
    assertThat(out.finish()).isFalse();
    assertThat(in.finish()).isFalse();
  }

  @Test
  void responsesRoundTripThroughTheClientDecoder() {
    Response response =
        Response.newBuilder()
            .setHeader(Messages.header(3).toBuilder().setRequestId(99))
            .setPing(io.vcorfu.protocol.proto.PingResponse.newBuilder().setNodeId("n1"))
            .build();
    EmbeddedChannel out = new EmbeddedChannel(ProtoEncoder.INSTANCE);
    out.writeOutbound(response);
    EmbeddedChannel in = new EmbeddedChannel(Framing.newFrameDecoder(1024), ProtoDecoder.RESPONSES);
    for (ByteBuf b; (b = out.readOutbound()) != null; ) {
      in.writeInbound(b);
    }
    assertThat((Response) in.readInbound()).isEqualTo(response);
    assertThat(out.finish()).isFalse();
    assertThat(in.finish()).isFalse();
  }

  @Test
  void framesFedOneByteAtATimeDecodeInOrder() {
    List<Request> sent = sample(20);
    byte[] bytes = wireBytes(sent);
    EmbeddedChannel in = serverInbound(1024);
    for (byte b : bytes) {
      in.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
    }
    assertThat(readAll(in)).containsExactlyElementsOf(sent);
    assertThat(in.finish()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(longs = {1L, 7L, 2024L, 99991L})
  void framesFedInRandomChunksDecodeInOrder(long seed) {
    LOG.info("random chunking seed {}", seed);
    Random random = new Random(seed);
    List<Request> sent = sample(200);
    byte[] bytes = wireBytes(sent);
    EmbeddedChannel in = serverInbound(1024);
    int at = 0;
    while (at < bytes.length) {
      int chunk = Math.min(bytes.length - at, 1 + random.nextInt(13));
      in.writeInbound(Unpooled.wrappedBuffer(bytes, at, chunk));
      at += chunk;
    }
    assertThat(readAll(in)).containsExactlyElementsOf(sent);
    assertThat(in.finish()).isFalse();
  }

  @Test
  void aFrameAboveTheLimitIsRejectedAsSoonAsItsLengthIsRead() {
    EmbeddedChannel in = serverInbound(100);
    ByteBuf prefix = Unpooled.buffer().writeInt(101).writeBytes(new byte[3]);
    assertThatThrownBy(() -> in.writeInbound(prefix))
        .isInstanceOf(TooLongFrameException.class)
        .hasMessageContaining("frame of 101 bytes, over the limit of 100 bytes");
    in.finishAndReleaseAll();
  }

  @Test
  void aFrameAtTheLimitIsAccepted() {
    Request big = Messages.ofSize(200);
    int size = big.getSerializedSize();
    EmbeddedChannel in = serverInbound(size);
    in.writeInbound(Unpooled.wrappedBuffer(wireBytes(List.of(big))));
    assertThat(readAll(in)).containsExactly(big);
    assertThat(in.finish()).isFalse();
  }

  @Test
  void aFrameThatIsNotAProtobufRequestIsACorruptedFrame() {
    EmbeddedChannel in = serverInbound(1024);
    ByteBuf garbage =
        Unpooled.buffer()
            .writeInt(5)
            .writeBytes(
                new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
    assertThatThrownBy(() -> in.writeInbound(garbage))
        .isInstanceOf(CorruptedFrameException.class)
        .hasMessageContaining("5-byte frame is not a valid vcorfu request");
    in.finishAndReleaseAll();
  }

  @Test
  void theLengthPrefixIsUnsignedSoAHighBitMeansTooLong() {
    EmbeddedChannel in = serverInbound(1024);
    ByteBuf garbage = Unpooled.buffer().writeInt(-5).writeInt(0);
    assertThatThrownBy(() -> in.writeInbound(garbage))
        .isInstanceOf(TooLongFrameException.class)
        .hasMessageContaining("4294967291 bytes");
    in.finishAndReleaseAll();
  }

  @Test
  void frameDecoderRejectsANonPositiveLimit() {
    assertThatThrownBy(() -> Framing.newFrameDecoder(0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
